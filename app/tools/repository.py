"""SQL of the tools besides the searches they share with context builds."""

import uuid
from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.sessions.models import SessionMessage


class ToolRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def message_ids(self, session_id: uuid.UUID, seqs: Sequence[int]) -> dict[int, uuid.UUID]:
        """The ids of a session's messages at these seqs."""
        if not seqs:
            return {}
        rows = await self.session.execute(
            select(SessionMessage.seq, SessionMessage.id).where(
                SessionMessage.session_id == session_id, SessionMessage.seq.in_(seqs)
            )
        )
        return {row[0]: row[1] for row in rows}
