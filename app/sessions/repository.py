"""SQL of sessions and their messages."""

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from sqlalchemy import bindparam, or_, select, text, tuple_
from sqlalchemy.dialects.postgresql import ARRAY, insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.types import String

from app.context.history import StoredCost
from app.context.search_sql import ANY_WORD
from app.core.vector import Embedding, VectorType
from app.sessions.models import ConversationSession, SessionMessage, SessionSummary

# The session's messages from seq :from_seq to before :before found by their words (at least
# :least of the input's, stemmed: through the (session, words) GIN index) or by their meaning
# (a vector at least :min_similarity similar to the input's :vector: an exact scan of the
# range's rows), ranked by reciprocal rank fusion of the two orders (ts_rank, similarity):
# 1/(60 + rank) for each order a message is in, summed, so one found both ways comes first.
# At most :limit, best first; one statement.
_RECALL = text(
    f"WITH q AS (SELECT {ANY_WORD} AS query, CAST(:vector AS vector) AS vector), "
    "by_words AS (SELECT m.id, ts_rank(m.words, q.query) AS words_rank "
    "FROM session_message m, q WHERE m.session_id = :session AND m.words @@ q.query "
    "AND m.seq >= :from_seq AND m.seq < :before "
    "AND (SELECT count(*) FROM unnest(CAST(:words AS text[])) w "
    "WHERE m.words @@ quote_literal(w)::tsquery) >= :least), "
    "by_meaning AS (SELECT m.id, 1 - (m.embedding <=> q.vector) AS similarity "
    "FROM session_message m, q WHERE m.session_id = :session AND q.vector IS NOT NULL "
    "AND m.embedding IS NOT NULL AND m.seq >= :from_seq AND m.seq < :before "
    "AND 1 - (m.embedding <=> q.vector) >= :min_similarity), "
    "found AS (SELECT id, w.words_rank, s.similarity, "
    "COALESCE(1.0 / (60 + CASE WHEN w.id IS NOT NULL THEN rank() OVER "
    "(ORDER BY w.words_rank DESC NULLS LAST) END), 0) + "
    "COALESCE(1.0 / (60 + CASE WHEN s.id IS NOT NULL THEN rank() OVER "
    "(ORDER BY s.similarity DESC NULLS LAST) END), 0) AS score "
    "FROM by_words w FULL JOIN by_meaning s USING (id)) "
    "SELECT m.seq, m.role, m.content, m.name, m.tool_call_id, m.created_at, "
    "f.words_rank IS NOT NULL AS by_words, f.similarity IS NOT NULL AS by_meaning, "
    "CASE WHEN m.embedding IS NOT NULL THEN 1 - (m.embedding <=> q.vector) END AS similarity, "
    "f.score FROM found f JOIN session_message m ON m.id = f.id, q "
    "ORDER BY f.score DESC, m.seq LIMIT :limit"
).bindparams(bindparam("words", type_=ARRAY(String())), bindparam("vector", type_=VectorType()))


# The summaries wholly before :before that no coarser one wholly before it contains.
_COVERING = text(
    "SELECT s.depth, s.first_seq, s.last_seq, s.message_count, s.content, s.quoted_seqs "
    "FROM session_summary s WHERE s.session_id = :session AND s.depth >= 1 "
    "AND s.last_seq < :before "
    "AND NOT EXISTS (SELECT 1 FROM session_summary p WHERE p.session_id = :session "
    "AND p.depth > s.depth AND p.first_seq <= s.first_seq AND p.last_seq >= s.last_seq "
    "AND p.last_seq < :before) ORDER BY s.last_seq DESC"
)


class FoundSummary(NamedTuple):
    """A summary a build can place before its kept messages."""

    depth: int
    first_seq: int
    last_seq: int
    messages: int
    content: str
    quoted_seqs: list[int]


class FoundMessage(NamedTuple):
    """A message recall found: whether by its words, by its meaning, its similarity to the
    input (None without both vectors) and its fused rank score."""

    seq: int
    role: str
    content: str
    name: str | None
    tool_call_id: str | None
    created_at: datetime
    by_words: bool
    by_meaning: bool
    similarity: float | None
    score: float


@dataclass(frozen=True)
class RecallQuery:
    """What recall looks for: the input's words (as PostgreSQL stems them) and how many of
    them a message must hold, its vector (None: words only) and the least similarity that
    recalls by meaning."""

    words: Sequence[str]
    least: int
    vector: Embedding | None
    min_similarity: float


class SessionRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def get(self, agent_id: uuid.UUID, name: str) -> ConversationSession | None:
        return await self.session.scalar(
            select(ConversationSession).where(
                ConversationSession.agent_id == agent_id, ConversationSession.name == name
            )
        )

    async def lock_or_create(
        self, tenant_id: uuid.UUID, agent_id: uuid.UUID, name: str, now: datetime
    ) -> ConversationSession:
        """The session, created when new, locked until the transaction ends: appends to one
        session take their turns, each numbering its messages after the last one's."""
        await self.session.execute(
            insert(ConversationSession)
            .values(
                id=uuid.uuid4(),
                tenant_id=tenant_id,
                agent_id=agent_id,
                name=name,
                created_at=now,
                updated_at=now,
            )
            # A concurrent first append waits here for the other's insert, then finds its row.
            .on_conflict_do_nothing(index_elements=["agent_id", "name"])
        )
        found = await self.session.scalar(
            select(ConversationSession)
            .where(ConversationSession.agent_id == agent_id, ConversationSession.name == name)
            .with_for_update()
            # Re-read the row under the lock even if this session loaded it before.
            .execution_options(populate_existing=True)
        )
        assert found is not None
        return found

    async def add_messages(self, messages: Sequence[SessionMessage]) -> None:
        self.session.add_all(messages)
        await self.session.flush()

    async def page(
        self, session_id: uuid.UUID, *, after: int | None, limit: int
    ) -> list[SessionMessage]:
        """Messages of a session in conversation order, those after seq `after` when given."""
        query = select(SessionMessage).where(SessionMessage.session_id == session_id)
        if after is not None:
            query = query.where(SessionMessage.seq > after)
        query = query.order_by(SessionMessage.seq).limit(limit)
        return list(await self.session.scalars(query))

    async def ends(
        self, session_id: uuid.UUID, *, first: int, last_from: int
    ) -> list[SessionMessage]:
        """The session's first `first` messages and those from seq `last_from` on, in
        conversation order: all a history selection can use (`app.context.history.read_from`)."""
        return list(
            await self.session.scalars(
                select(SessionMessage)
                .where(
                    SessionMessage.session_id == session_id,
                    or_(SessionMessage.seq < first, SessionMessage.seq >= last_from),
                )
                .order_by(SessionMessage.seq)
            )
        )

    async def stored_costs(self, session_id: uuid.UUID, from_seq: int) -> list[StoredCost]:
        """Seq, role and stored tokens of the session's messages from `from_seq` on, in
        conversation order: a history selection learns from them how far back to read."""
        rows = await self.session.execute(
            select(SessionMessage.seq, SessionMessage.role, SessionMessage.tokens)
            .where(SessionMessage.session_id == session_id, SessionMessage.seq >= from_seq)
            .order_by(SessionMessage.seq)
        )
        return [StoredCost(r.seq, r.role, r.tokens) for r in rows]

    async def times_at(self, session_id: uuid.UUID, seqs: Sequence[int]) -> dict[int, datetime]:
        """`created_at` of the session's messages at these positions."""
        rows = await self.session.execute(
            select(SessionMessage.seq, SessionMessage.created_at).where(
                SessionMessage.session_id == session_id, SessionMessage.seq.in_(seqs)
            )
        )
        return {row[0]: row[1] for row in rows}

    async def recall(
        self, session_id: uuid.UUID, query: RecallQuery, *, seqs: range, limit: int
    ) -> list[FoundMessage]:
        """The session's messages in `seqs` found by the query's words or its vector, best
        first (`_RECALL`)."""
        bound = {
            "session": session_id,
            "words": list(query.words),
            "least": query.least,
            "vector": query.vector,
            "min_similarity": query.min_similarity,
            "from_seq": seqs.start,
            "before": seqs.stop,
            "limit": limit,
        }
        return [FoundMessage(*row) for row in await self.session.execute(_RECALL, bound)]

    async def by_id(self, session_id: uuid.UUID) -> ConversationSession | None:
        return await self.session.get(ConversationSession, session_id)

    async def summary_places(self, session_id: uuid.UUID) -> set[tuple[int, int]]:
        """(depth, first_seq) of the session's summaries."""
        rows = await self.session.execute(
            select(SessionSummary.depth, SessionSummary.first_seq).where(
                SessionSummary.session_id == session_id
            )
        )
        return {(row[0], row[1]) for row in rows}

    async def summaries_at(
        self, session_id: uuid.UUID, places: Sequence[tuple[int, int]]
    ) -> list[SessionSummary]:
        """The session's summaries at these (depth, first_seq), in conversation order."""
        return list(
            await self.session.scalars(
                select(SessionSummary)
                .where(
                    SessionSummary.session_id == session_id,
                    tuple_(SessionSummary.depth, SessionSummary.first_seq).in_(places),
                )
                .order_by(SessionSummary.first_seq)
            )
        )

    async def add_summary(self, summary: SessionSummary) -> None:
        """Store a summary, unless one is at its place already (another worker made it)."""
        values = {c.key: getattr(summary, c.key) for c in SessionSummary.__table__.columns}
        del values["created_at"]
        await self.session.execute(
            insert(SessionSummary)
            .values(values)
            .on_conflict_do_nothing(index_elements=["session_id", "depth", "first_seq"])
        )

    async def summaries(self, session_id: uuid.UUID) -> list[SessionSummary]:
        """The session's summaries, coarsest first, in conversation order."""
        return list(
            await self.session.scalars(
                select(SessionSummary)
                .where(SessionSummary.session_id == session_id, SessionSummary.depth >= 1)
                .order_by(SessionSummary.depth.desc(), SessionSummary.first_seq)
            )
        )

    async def covering(self, session_id: uuid.UUID, before: int) -> list[FoundSummary]:
        """The coarsest of the session's summaries of messages before seq `before`: those no
        summary of a greater depth before it contains, newest first. One statement over the
        (session, depth, first_seq) index."""
        rows = await self.session.execute(_COVERING, {"session": session_id, "before": before})
        return [FoundSummary(*row) for row in rows]

    async def long_unsummarized(
        self, session_id: uuid.UUID, min_tokens: int, limit: int
    ) -> list[SessionMessage]:
        """The session's assistant and tool messages over `min_tokens` without a summary of
        their own (depth 0), oldest first."""
        summarized = select(SessionSummary.first_seq).where(
            SessionSummary.session_id == session_id, SessionSummary.depth == 0
        )
        return list(
            await self.session.scalars(
                select(SessionMessage)
                .where(
                    SessionMessage.session_id == session_id,
                    SessionMessage.role.in_(("assistant", "tool")),
                    SessionMessage.tokens > min_tokens,
                    SessionMessage.seq.not_in(summarized),
                )
                .order_by(SessionMessage.seq)
                .limit(limit)
            )
        )

    async def short_forms(self, session_id: uuid.UUID, seqs: Sequence[int]) -> dict[int, str]:
        """The summaries of their own (depth 0) of the session's messages at these seqs."""
        rows = await self.session.execute(
            select(SessionSummary.first_seq, SessionSummary.content).where(
                SessionSummary.session_id == session_id,
                SessionSummary.depth == 0,
                SessionSummary.first_seq.in_(seqs),
            )
        )
        return {row[0]: row[1] for row in rows}

    async def flush(self) -> None:
        await self.session.flush()
