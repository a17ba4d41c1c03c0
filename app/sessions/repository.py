"""SQL of sessions and their messages."""

import uuid
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import or_, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from app.sessions.models import ConversationSession, SessionMessage


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
        conversation order: all a history selection can use (`app.context.history.reach`)."""
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

    async def times_at(self, session_id: uuid.UUID, seqs: Sequence[int]) -> dict[int, datetime]:
        """`created_at` of the session's messages at these positions."""
        rows = await self.session.execute(
            select(SessionMessage.seq, SessionMessage.created_at).where(
                SessionMessage.session_id == session_id, SessionMessage.seq.in_(seqs)
            )
        )
        return {row[0]: row[1] for row in rows}

    async def flush(self) -> None:
        await self.session.flush()
