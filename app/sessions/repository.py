"""SQL of sessions and their messages."""

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from sqlalchemy import bindparam, delete, select, text, tuple_
from sqlalchemy.dialects.postgresql import ARRAY, insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.types import String

from app.core.text_search import ANY_WORD
from app.core.vector import Embedding, VectorType
from app.sessions.models import ConversationSession, SessionMessage

# A message holds at least :least (1 or 2, `app.context.history.recall.words_needed`) of the input's
# words: any one of them, or both words of some pair; so the (session, words) GIN index finds
# exactly the messages that qualify, with no count to check on each row it returns.
_AT_LEAST = (
    f"CASE WHEN :least <= 1 THEN {ANY_WORD} ELSE to_tsquery('simple', array_to_string(ARRAY("
    "SELECT '(' || quote_literal(a.w) || ' & ' || quote_literal(b.w) || ')' "
    "FROM unnest(CAST(:words AS text[])) WITH ORDINALITY a(w, i) "
    "JOIN unnest(CAST(:words AS text[])) WITH ORDINALITY b(w, j) ON a.i < b.j), ' | ')) END"
)
# The session's messages from seq :from_seq to before :before found by their words (`_AT_LEAST`,
# ranked by ts_rank against all of the input's words) or by their meaning (a vector at least
# :min_similarity similar to the input's :vector: an exact scan of the range's rows), ranked by
# reciprocal rank fusion of the two orders: 1/(60 + rank) for each order a message is in,
# summed, so one found both ways comes first. At most :limit, best first, and only those are
# read whole; one statement.
_RECALL = text(
    f"WITH q AS (SELECT {ANY_WORD} AS query, {_AT_LEAST} AS enough, "
    "CAST(:vector AS vector) AS vector), "
    "by_words AS (SELECT m.id, m.seq, ts_rank(m.words, q.query) AS words_rank "
    "FROM session_message m, q WHERE m.session_id = :session AND m.words @@ q.enough "
    "AND m.seq >= :from_seq AND m.seq < :before), "
    "by_meaning AS (SELECT m.id, m.seq, 1 - (m.embedding <=> q.vector) AS similarity "
    "FROM session_message m, q WHERE m.session_id = :session AND q.vector IS NOT NULL "
    "AND m.embedding IS NOT NULL AND m.seq >= :from_seq AND m.seq < :before "
    "AND 1 - (m.embedding <=> q.vector) >= :min_similarity), "
    "found AS (SELECT id, COALESCE(w.seq, s.seq) AS seq, w.words_rank, s.similarity, "
    "COALESCE(1.0 / (60 + CASE WHEN w.id IS NOT NULL THEN rank() OVER "
    "(ORDER BY w.words_rank DESC NULLS LAST) END), 0) + "
    "COALESCE(1.0 / (60 + CASE WHEN s.id IS NOT NULL THEN rank() OVER "
    "(ORDER BY s.similarity DESC NULLS LAST) END), 0) AS score "
    "FROM by_words w FULL JOIN by_meaning s USING (id)), "
    "best AS (SELECT * FROM found ORDER BY score DESC, seq LIMIT :limit) "
    "SELECT m.seq, m.role, m.content, m.name, m.tool_call_id, m.created_at, "
    "f.words_rank IS NOT NULL AS by_words, f.similarity IS NOT NULL AS by_meaning, "
    "CASE WHEN m.embedding IS NOT NULL THEN 1 - (m.embedding <=> q.vector) END AS similarity, "
    "f.score FROM best f JOIN session_message m ON m.id = f.id, q "
    "ORDER BY f.score DESC, m.seq"
).bindparams(bindparam("words", type_=ARRAY(String())), bindparam("vector", type_=VectorType()))


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

    async def times_at(
        self, places: Sequence[tuple[uuid.UUID, int]]
    ) -> dict[tuple[uuid.UUID, int], datetime]:
        """`created_at` of the messages at these (session id, seq) places."""
        if not places:
            return {}
        m = SessionMessage
        rows = await self.session.execute(
            select(m.session_id, m.seq, m.created_at).where(tuple_(m.session_id, m.seq).in_(places))
        )
        return {(row[0], row[1]): row[2] for row in rows}

    async def sessions_page(
        self, agent_id: uuid.UUID, *, after: tuple[datetime, str] | None, limit: int
    ) -> list[ConversationSession]:
        """The agent's sessions, newest first, after a (created_at, name) cursor."""
        s = ConversationSession
        query = select(s).where(s.agent_id == agent_id)
        if after is not None:
            query = query.where(tuple_(s.created_at, s.name) < tuple_(*after))
        query = query.order_by(s.created_at.desc(), s.name.desc()).limit(limit)
        return list(await self.session.scalars(query))

    async def delete(self, session_id: uuid.UUID) -> bool:
        """Delete the session and, by the foreign keys' cascades, its messages, summaries,
        efforts and jobs; False when it was gone already (erased by a concurrent request)."""
        s = ConversationSession
        erased = await self.session.scalar(delete(s).where(s.id == session_id).returning(s.id))
        return erased is not None

    async def hold(self, session_id: uuid.UUID) -> bool:
        """Keep the session from being erased until the transaction ends (what a row of it
        written now takes anyway, by its foreign key); False when it is gone."""
        found = await self.session.scalar(
            select(ConversationSession.id)
            .where(ConversationSession.id == session_id)
            .with_for_update(read=True, key_share=True)
        )
        return found is not None

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

    async def flush(self) -> None:
        await self.session.flush()
