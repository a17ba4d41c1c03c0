"""Idempotency-Key: a retried POST returns the first response and stores nothing twice."""

import hashlib
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated

from fastapi import Header, Request
from pydantic import JsonValue
from sqlalchemy import DateTime, ForeignKey, String, func, select, update
from sqlalchemy.dialects.postgresql import JSONB, insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base
from app.core.errors import Conflict


class IdempotencyRecord(Base):
    """The first response to a request sent with an Idempotency-Key."""

    __tablename__ = "idempotency_record"

    tenant_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("tenant.id"), primary_key=True)
    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    request_hash: Mapped[str] = mapped_column(String(64))
    response: Mapped[JsonValue | None] = mapped_column(JSONB)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        min_length=1,
        max_length=255,
        description="Retrying a POST with the same key returns the first response; "
        "nothing is stored twice.",
    ),
]


@dataclass(frozen=True)
class Idempotency:
    """An Idempotency-Key and the fingerprint of the request that carries it."""

    key: str
    fingerprint: str


def request_fingerprint(method: str, path: str, body: str) -> str:
    """What makes two requests the same request."""
    return hashlib.sha256(f"{method} {path}\n{body}".encode()).hexdigest()


def idempotency_of(request: Request, key: str | None, body: str) -> Idempotency | None:
    """The Idempotency-Key of a POST with its fingerprint, when the client sent one."""
    if key is None:
        return None
    return Idempotency(key, request_fingerprint("POST", request.url.path, body))


class IdempotencyRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def claim(self, tenant_id: uuid.UUID, key: str, fingerprint: str) -> JsonValue | None:
        """Claim the key for this request, or return the response stored by the first one.

        The insert waits while another transaction holds the same key, so a concurrent retry
        sees the first request's response once it commits.
        """
        claimed = await self.session.scalar(
            insert(IdempotencyRecord)
            .values(tenant_id=tenant_id, key=key, request_hash=fingerprint)
            .on_conflict_do_nothing()
            .returning(IdempotencyRecord.key)
        )
        if claimed is not None:
            return None
        record = await self.session.scalar(
            select(IdempotencyRecord).where(
                IdempotencyRecord.tenant_id == tenant_id, IdempotencyRecord.key == key
            )
        )
        assert record is not None
        if record.request_hash != fingerprint:
            raise Conflict(
                "This Idempotency-Key was used for a different request; use a new key.",
                idempotency_key=key,
            )
        return record.response

    async def replay(self, tenant_id: uuid.UUID, idempotency: Idempotency | None) -> JsonValue:
        """For a request with a key: the first response when this is a retry, else None once
        the key is claimed (see `claim`). None for a request without a key."""
        if idempotency is None:
            return None
        return await self.claim(tenant_id, idempotency.key, idempotency.fingerprint)

    async def remember(
        self, tenant_id: uuid.UUID, idempotency: Idempotency | None, response: JsonValue
    ) -> None:
        """Keep the response of a request with a key, to replay it on a retry."""
        if idempotency is not None:
            await self.store(tenant_id, idempotency.key, response)

    async def store(self, tenant_id: uuid.UUID, key: str, response: JsonValue) -> None:
        """Keep the response to replay it on a retry."""
        await self.session.execute(
            update(IdempotencyRecord)
            .where(IdempotencyRecord.tenant_id == tenant_id, IdempotencyRecord.key == key)
            .values(response=response)
        )

    async def replace_containing(
        self, tenant_id: uuid.UUID, contained: JsonValue, replacement: JsonValue
    ) -> None:
        """Replace the stored responses that hold `contained` (JSON containment): a replay
        must not return what was erased since."""
        await self.session.execute(
            update(IdempotencyRecord)
            .where(
                IdempotencyRecord.tenant_id == tenant_id,
                IdempotencyRecord.response.contains(contained),
            )
            .values(response=replacement)
        )
