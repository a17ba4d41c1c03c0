"""SQL of a session's summaries: of its spans and of its long messages one by one."""

import uuid
from collections.abc import Sequence
from typing import NamedTuple

from sqlalchemy import select, text, tuple_
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from app.sessions.models import SessionMessage, SessionSummary

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


class SummaryRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

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

    async def add_summary(self, summary: SessionSummary, *, upgrade: bool = False) -> None:
        """Store a summary, unless one is at its place already (another worker made it); with
        `upgrade`, an LLM's summary takes the place of an extractive one."""
        values = {c.key: getattr(summary, c.key) for c in SessionSummary.__table__.columns}
        del values["created_at"]
        statement = insert(SessionSummary).values(values)
        place = ["session_id", "depth", "first_seq"]
        if upgrade:
            changed = ("content", "tokens", "method", "quoted_seqs")
            await self.session.execute(
                statement.on_conflict_do_update(
                    index_elements=place,
                    set_={key: statement.excluded[key] for key in changed},
                    where=SessionSummary.method == "extractive",
                )
            )
        else:
            await self.session.execute(statement.on_conflict_do_nothing(index_elements=place))

    async def extractive_places(
        self, session_id: uuid.UUID, limit: int
    ) -> list[tuple[int, int, int]]:
        """(depth, first_seq, last_seq) of the session's extractive summaries, finest first and
        newest first within a depth: those an LLM may rewrite, a summary's parts before it."""
        rows = await self.session.execute(
            select(SessionSummary.depth, SessionSummary.first_seq, SessionSummary.last_seq)
            .where(SessionSummary.session_id == session_id, SessionSummary.method == "extractive")
            .order_by(SessionSummary.depth, SessionSummary.first_seq.desc())
            .limit(limit)
        )
        return [(r[0], r[1], r[2]) for r in rows]

    async def summaries(
        self, session_ids: Sequence[uuid.UUID]
    ) -> dict[uuid.UUID, list[SessionSummary]]:
        """Each session's summaries, coarsest first, in conversation order."""
        found: dict[uuid.UUID, list[SessionSummary]] = {s: [] for s in session_ids}
        if not session_ids:
            return found
        rows = await self.session.scalars(
            select(SessionSummary)
            .where(SessionSummary.session_id.in_(session_ids), SessionSummary.depth >= 1)
            .order_by(SessionSummary.depth.desc(), SessionSummary.first_seq)
        )
        for summary in rows:
            found[summary.session_id].append(summary)
        return found

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
