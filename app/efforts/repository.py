"""SQL of efforts: the rows, their messages, references, the working set a build reads, and
the search over their titles, goals and summaries."""

import uuid
from collections.abc import Sequence
from typing import NamedTuple

from sqlalchemy import bindparam, exists, func, select, text, update
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.types import String

from app.core.vector import Embedding, VectorType
from app.efforts.models import SessionEffort
from app.sessions.models import SessionMessage

# An effort's keywords: the lexemes of its title and goal, and the :k most frequent of
# :extra (its summary's text), as PostgreSQL stems English; three letters at least.
_KEYWORDS = text(
    "UPDATE session_effort e SET keywords = ARRAY(SELECT DISTINCT w FROM ("
    "(SELECT lexeme AS w FROM unnest(to_tsvector('english', "
    "e.title || ' ' || coalesce(e.goal, '')))) UNION ALL "
    "(SELECT lexeme FROM unnest(to_tsvector('english', :extra)) "
    "ORDER BY array_length(positions, 1) DESC, positions[1] LIMIT :k)) found "
    "WHERE length(w) > 2 ORDER BY w) WHERE e.id = :effort"
)
# The session's concluded and expanded efforts a message refers to: one of :named (any
# message but a system one) names `e_{number}` as a word, or one of :said (a user's or the
# assistant's) holds :least of its keywords.
_REFERENCED = text(
    "WITH said AS (SELECT tsvector_to_array(to_tsvector('english', t)) AS words "
    "FROM unnest(CAST(:said AS text[])) t) "
    "SELECT e.id FROM session_effort e WHERE e.session_id = :session AND e.state <> 'open' AND ("
    "EXISTS (SELECT 1 FROM unnest(CAST(:named AS text[])) t "
    "WHERE t ~* ('\\me_' || e.number || '\\M')) OR "
    "EXISTS (SELECT 1 FROM said WHERE cardinality(ARRAY("
    "SELECT unnest(e.keywords) INTERSECT SELECT unnest(said.words))) >= :least))"
).bindparams(bindparam("said", type_=ARRAY(String())), bindparam("named", type_=ARRAY(String())))
# The session's efforts whose title, goal or summary hold any of the query's words (as
# PostgreSQL stems English), or that it names, best first: named, then by ts_rank.
_SEARCH = text(
    "WITH q AS (SELECT to_tsquery('simple', array_to_string(ARRAY("
    "SELECT quote_literal(l) FROM unnest(tsvector_to_array(to_tsvector('english', :query))) l"
    "), ' | ')) AS query), "
    "found AS (SELECT e.id, (:query ~* ('\\me_' || e.number || '\\M')) AS named, "
    "ts_rank(to_tsvector('english', e.title || ' ' || coalesce(e.goal, '') || ' ' || "
    "coalesce(e.summary, '')), q.query) AS rank FROM session_effort e, q "
    "WHERE e.session_id = :session) "
    "SELECT id, CASE WHEN named THEN 1.0 ELSE 0.0 END + rank AS score FROM found "
    "WHERE named OR rank > 0 ORDER BY score DESC, id LIMIT :limit"
)


# The session's efforts by their messages' meaning: the best similarity of one of an effort's
# messages (their vectors, computed in the background) to :vector, at least :min_similarity; an
# exact scan of the session's effort messages, as recall's.
_BY_MEANING = text(
    "SELECT m.effort_id, max(1 - (m.embedding <=> CAST(:vector AS vector))) AS similarity "
    "FROM session_message m WHERE m.session_id = :session AND m.effort_id IS NOT NULL "
    "AND m.embedding IS NOT NULL GROUP BY m.effort_id "
    "HAVING max(1 - (m.embedding <=> CAST(:vector AS vector))) >= :min_similarity "
    "ORDER BY similarity DESC, m.effort_id LIMIT :limit"
).bindparams(bindparam("vector", type_=VectorType()))


class WorkingRow(NamedTuple):
    """A message of a build's working set, and its effort (None: ambient)."""

    seq: int
    role: str
    content: str
    name: str | None
    tool_call_id: str | None
    effort_id: uuid.UUID | None


class EffortRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def for_session(self, session_id: uuid.UUID) -> list[SessionEffort]:
        """The session's efforts, oldest first."""
        rows = await self.session.scalars(
            select(SessionEffort)
            .where(SessionEffort.session_id == session_id)
            .order_by(SessionEffort.number)
        )
        return list(rows)

    async def get(self, session_id: uuid.UUID, number: int) -> SessionEffort | None:
        return await self.session.scalar(
            select(SessionEffort)
            .where(SessionEffort.session_id == session_id, SessionEffort.number == number)
            .execution_options(populate_existing=True)
        )

    async def by_ids(self, effort_ids: Sequence[uuid.UUID]) -> list[SessionEffort]:
        rows = await self.session.scalars(
            select(SessionEffort).where(SessionEffort.id.in_(effort_ids))
        )
        return list(rows)

    async def hold(self, effort_id: uuid.UUID) -> bool:
        """Lock the effort for an update until the transaction ends; False when it is gone."""
        found = await self.session.scalar(
            select(SessionEffort.id)
            .where(SessionEffort.id == effort_id)
            .with_for_update(key_share=True)  # FOR NO KEY UPDATE
        )
        return found is not None

    async def open_of(self, session_id: uuid.UUID) -> SessionEffort | None:
        return await self.session.scalar(
            select(SessionEffort).where(
                SessionEffort.session_id == session_id, SessionEffort.state == "open"
            )
        )

    async def census(self, session_id: uuid.UUID) -> tuple[uuid.UUID | None, int]:
        """The session's open effort (None) and how many others it has."""
        e = SessionEffort
        row = (
            await self.session.execute(
                select(
                    func.max(func.cast(e.id, String)).filter(e.state == "open"),
                    func.count().filter(e.state != "open"),
                ).where(e.session_id == session_id)
            )
        ).one()
        return (uuid.UUID(row[0]) if row[0] else None), int(row[1])

    async def next_number(self, session_id: uuid.UUID) -> int:
        found = await self.session.scalar(
            select(func.max(SessionEffort.number)).where(SessionEffort.session_id == session_id)
        )
        return (found or 0) + 1

    async def add(self, effort: SessionEffort) -> None:
        self.session.add(effort)
        await self.session.flush()

    async def flush(self) -> None:
        await self.session.flush()

    async def sizes(self, session_id: uuid.UUID) -> dict[uuid.UUID, tuple[int, int]]:
        """Messages and their stored tokens, by effort of the session."""
        m = SessionMessage
        rows = await self.session.execute(
            select(m.effort_id, func.count(), func.coalesce(func.sum(m.tokens), 0))
            .where(m.session_id == session_id, m.effort_id.is_not(None))
            .group_by(m.effort_id)
        )
        return {row[0]: (int(row[1]), int(row[2])) for row in rows if row[0] is not None}

    async def set_keywords(self, effort_id: uuid.UUID, extra: str, k: int) -> None:
        await self.session.execute(_KEYWORDS, {"effort": effort_id, "extra": extra, "k": k})

    async def referenced(
        self, session_id: uuid.UUID, named: Sequence[str], said: Sequence[str], least: int
    ) -> list[uuid.UUID]:
        """The session's concluded and expanded efforts the texts refer to (`_REFERENCED`)."""
        bound = {"session": session_id, "named": list(named), "said": list(said), "least": least}
        return list(await self.session.scalars(_REFERENCED, bound))

    async def touch(self, effort_ids: Sequence[uuid.UUID], turn: int) -> None:
        """Record a reference to these efforts at `turn`."""
        if effort_ids:
            await self.session.execute(
                update(SessionEffort)
                .where(SessionEffort.id.in_(effort_ids))
                .values(
                    last_referenced_turn=func.greatest(SessionEffort.last_referenced_turn, turn)
                )
            )

    async def collapse(self, session_id: uuid.UUID, turn: int, decay: int) -> None:
        """Expanded efforts `decay` turns without a reference are concluded again."""
        await self.session.execute(
            update(SessionEffort)
            .where(
                SessionEffort.session_id == session_id,
                SessionEffort.state == "expanded",
                SessionEffort.last_referenced_turn <= turn - decay,
            )
            .values(state="concluded")
        )

    async def ambient_from(self, session_id: uuid.UUID, window: int) -> int | None:
        """seq of the `window`-th last user message outside any effort: where the ambient
        window starts; None when there are fewer (all ambient messages are in it)."""
        if window <= 0:
            return 2**31 - 1
        m = SessionMessage
        return await self.session.scalar(
            select(m.seq)
            .where(m.session_id == session_id, m.effort_id.is_(None), m.role == "user")
            .order_by(m.seq.desc())
            .offset(window - 1)
            .limit(1)
        )

    async def working_messages(
        self, session_id: uuid.UUID, *, sinks: int, raw: Sequence[uuid.UUID], ambient_from: int
    ) -> list[WorkingRow]:
        """The first `sinks` messages, those of the efforts in `raw`, and the ambient ones
        from seq `ambient_from`, in conversation order."""
        m = SessionMessage
        columns = (m.seq, m.role, m.content, m.name, m.tool_call_id, m.effort_id)
        mine = m.session_id == session_id
        parts = [
            select(*columns).where(mine, m.seq < sinks),
            select(*columns).where(mine, m.seq >= sinks, m.effort_id.is_(None))
            .where(m.seq >= ambient_from),
        ]  # fmt: skip
        if raw:
            parts.append(select(*columns).where(mine, m.seq >= sinks, m.effort_id.in_(raw)))
        union = parts[0].union_all(*parts[1:]).subquery()
        rows = await self.session.execute(select(union).order_by(union.c.seq))
        return [WorkingRow(*row) for row in rows]

    async def within(self, effort_ids: Sequence[uuid.UUID], before: int) -> set[uuid.UUID]:
        """Those of the efforts that have no message at seq `before` or later."""
        later = exists().where(SessionMessage.effort_id == SessionEffort.id)
        rows = await self.session.scalars(
            select(SessionEffort.id).where(
                SessionEffort.id.in_(effort_ids), ~later.where(SessionMessage.seq >= before)
            )
        )
        return set(rows)

    async def messages_of(self, effort_id: uuid.UUID) -> list[SessionMessage]:
        """An effort's messages, in conversation order."""
        rows = await self.session.scalars(
            select(SessionMessage)
            .where(SessionMessage.effort_id == effort_id)
            .order_by(SessionMessage.seq)
        )
        return list(rows)

    async def search(
        self, session_id: uuid.UUID, query: str, limit: int
    ) -> list[tuple[uuid.UUID, float]]:
        """The session's efforts the query's words find, best first, with their scores
        (`_SEARCH`: 1 when it names one, plus ts_rank)."""
        rows = await self.session.execute(
            _SEARCH, {"session": session_id, "query": query, "limit": limit}
        )
        return [(row[0], float(row[1])) for row in rows]

    async def by_meaning(
        self, session_id: uuid.UUID, vector: Embedding, min_similarity: float, limit: int
    ) -> list[tuple[uuid.UUID, float]]:
        """The session's efforts whose messages' meaning is close to `vector`, best first."""
        bound = {
            "session": session_id,
            "vector": vector,
            "min_similarity": min_similarity,
            "limit": limit,
        }
        rows = await self.session.execute(_BY_MEANING, bound)
        return [(row[0], float(row[1])) for row in rows]

    async def unsummarized(self, session_id: uuid.UUID, limit: int) -> list[SessionEffort]:
        """The session's concluded (or expanded) efforts without a summary yet, oldest first."""
        rows = await self.session.scalars(
            select(SessionEffort)
            .where(
                SessionEffort.session_id == session_id,
                SessionEffort.state != "open",
                SessionEffort.summary.is_(None),
            )
            .order_by(SessionEffort.number)
            .limit(limit)
        )
        return list(rows)
