"""SQL of session messages' vectors: the background job's, and a change of embedding model's."""

import uuid
from collections.abc import Mapping

from sqlalchemy import Table, bindparam, or_, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.vector import VectorType
from app.sessions.models import ConversationSession, SessionMessage


class MessageVectorRepository:
    """The SQL of session messages' vectors: the background job's and a change of model's."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def unembedded(
        self, session_id: uuid.UUID, limit: int
    ) -> list[tuple[uuid.UUID, str, uuid.UUID]]:
        """(id, content, tenant id) of the session's oldest `limit` messages with no vector,
        leaving out those the provider refused."""
        rows = await self.session.execute(
            select(SessionMessage.id, SessionMessage.content, ConversationSession.tenant_id)
            .join(ConversationSession, ConversationSession.id == SessionMessage.session_id)
            .where(
                SessionMessage.session_id == session_id,
                SessionMessage.embedding.is_(None),
                SessionMessage.embedding_refused.is_(None),
            )
            .order_by(SessionMessage.seq)
            .limit(limit)
        )
        return [(row[0], row[1], row[2]) for row in rows]

    async def store(
        self, vectors: Mapping[uuid.UUID, list[float]], refused: Mapping[uuid.UUID, str]
    ) -> None:
        """Store the messages' vectors, and why the provider refused the others."""
        table = SessionMessage.__table__
        assert isinstance(table, Table)
        if vectors:
            await self.session.execute(
                update(table)
                .where(table.c.id == bindparam("b_id"))
                .values(embedding=bindparam("b_vector", type_=VectorType())),
                [{"b_id": m, "b_vector": vector} for m, vector in vectors.items()],
            )
        if refused:
            await self.session.execute(
                update(table)
                .where(table.c.id == bindparam("b_id"))
                .values(embedding_refused=bindparam("b_reason")),
                [{"b_id": m, "b_reason": reason[:2000]} for m, reason in refused.items()],
            )

    async def reset(self, dimensions: int) -> list[uuid.UUID]:
        """Drop every message's vector and give the column a new dimension (after a change of
        model); the ids of the sessions that have messages, to embed them again."""
        await self.session.execute(
            update(SessionMessage)
            .where(
                or_(
                    SessionMessage.embedding.is_not(None),
                    SessionMessage.embedding_refused.is_not(None),
                )
            )
            .values(embedding=None, embedding_refused=None)
        )
        # A new type resets the column's storage to the type's: keep the vectors in the row
        # (migration 0016, recall's exact scan).
        await self.session.execute(
            text(
                "ALTER TABLE session_message "
                f"ALTER COLUMN embedding TYPE vector({int(dimensions)}), "
                "ALTER COLUMN embedding SET STORAGE MAIN"
            )
        )
        return list(
            await self.session.scalars(
                select(ConversationSession.id).where(ConversationSession.message_count > 0)
            )
        )

    async def any_embedded(self) -> bool:
        """Whether any message has a vector."""
        found = await self.session.scalar(
            select(SessionMessage.id).where(SessionMessage.embedding.is_not(None)).limit(1)
        )
        return found is not None
