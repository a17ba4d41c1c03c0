"""Idempotency-Key: a retried POST returns the first response and stores nothing twice.

Every API POST takes `Idempotent` and runs its service through `once` (or `once_serialized`):
the key is claimed in the request's transaction, the answer is kept beside it, and a retry with
the same key and body gets that answer back with `Idempotent-Replayed: true`. A request without
a key runs as it is: no query is added.
"""

import hashlib
import json
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, TypeVar

from fastapi import Depends, Header, Request, Response
from pydantic import BaseModel
from sqlalchemy import DateTime, ForeignKey, String, Text, cast, func, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base, DbSession
from app.core.documents import JsonDocument
from app.core.errors import Conflict, Gone

IDEMPOTENCY_HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
REPLAYED_DESCRIPTION = (
    "`true` when this is the first response to an earlier request with the same "
    "Idempotency-Key, sent again; nothing was stored this time."
)
M = TypeVar("M", bound=BaseModel)
# The key of a kept response that erasure replaced: what it showed is gone (`forget`).
_ERASED = '{"erased_record":'


class IdempotencyRecord(Base):
    """The first response to a request sent with an Idempotency-Key."""

    __tablename__ = "idempotency_record"

    tenant_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("tenant.id"), primary_key=True)
    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    request_hash: Mapped[str] = mapped_column(String(64))
    # The request's path: an erasure drops the kept responses of the agent's or session's routes.
    target: Mapped[str | None] = mapped_column(Text)
    # The body as it was sent: a `json` column keeps it byte for byte (`jsonb` reorders keys).
    response: Mapped[str | None] = mapped_column(JsonDocument)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


IdempotencyKey = Annotated[
    str | None,
    Header(
        alias=IDEMPOTENCY_HEADER,
        min_length=1,
        max_length=255,
        description="Retrying with the same key and body returns the first response (with "
        f"`{REPLAYED_HEADER}: true`) and stores nothing twice; the same key with another "
        "body or route answers 409. Keys are the tenant's own.",
    ),
]


def request_fingerprint(method: str, target: str, body: bytes) -> str:
    """What makes two requests the same request."""
    return hashlib.sha256(f"{method} {target}\n".encode() + body).hexdigest()


async def canonical_body(request: Request) -> bytes:
    """The body as canonical JSON: its spacing and key order do not make another request."""
    body = await request.body()
    if not body.strip():
        return b""
    try:
        parsed = await request.json()
        return json.dumps(parsed, sort_keys=True, separators=(",", ":")).encode()
    except (ValueError, RecursionError):
        return body  # a route without a body ignores what is sent; its bytes still count


def erased_response(record_id: uuid.UUID, kind: str, erased_at: datetime) -> str:
    """What a kept response that showed an erased record is replaced by."""
    erased = {"id": str(record_id), "kind": kind, "erased_at": erased_at.isoformat()}
    return f"{_ERASED} {json.dumps(erased)}}}"


def _refuse_erased(stored: str) -> None:
    """410 for a retry whose first response showed a record erased since."""
    if stored.startswith(_ERASED):
        erased = json.loads(stored)["erased_record"]
        raise Gone(
            f"The first response to this request showed {erased['kind']} {erased['id']}, "
            f"erased at {erased['erased_at']}: it is not kept. Send the request with a new "
            "Idempotency-Key to run it again.",
            erased_id=erased["id"],
            kind=erased["kind"],
            erased_at=erased["erased_at"],
        )


class IdempotencyRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def claim(
        self, tenant_id: uuid.UUID, key: str, fingerprint: str, target: str | None = None
    ) -> str | None:
        """Claim the key for this request, or return the response stored by the first one.

        The insert waits while another transaction holds the same key, so a concurrent retry
        sees the first request's response once it commits.
        """
        claimed = await self.session.scalar(
            insert(IdempotencyRecord)
            .values(tenant_id=tenant_id, key=key, request_hash=fingerprint, target=target)
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

    async def store(self, tenant_id: uuid.UUID, key: str, response: str) -> None:
        """Keep the response to replay it on a retry."""
        await self.session.execute(
            update(IdempotencyRecord)
            .where(IdempotencyRecord.tenant_id == tenant_id, IdempotencyRecord.key == key)
            .values(response=response)
        )

    async def forget(self, tenant_id: uuid.UUID, record_id: uuid.UUID, erased: str) -> None:
        """Replace the stored responses that show a record erased since (they name its id) by
        `erased`: a retry of their request answers 410 instead of showing it again."""
        await self.session.execute(
            update(IdempotencyRecord)
            .where(
                IdempotencyRecord.tenant_id == tenant_id,
                cast(IdempotencyRecord.response, Text).contains(str(record_id)),
            )
            .values(response=erased)
        )


@dataclass(frozen=True)
class IdempotentPost:
    """A POST's Idempotency-Key, if sent: its first answer is kept and replayed."""

    session: AsyncSession
    response: Response  # the request's response, whose headers FastAPI sends
    key: str | None
    fingerprint: str
    path: str = ""

    async def once(
        self, tenant_id: uuid.UUID, schema: type[M], produce: Callable[[], Awaitable[M]]
    ) -> M:
        """`produce`'s answer, kept under the key; a retry gets that answer instead."""
        if self.key is None:
            return await produce()
        stored = await self._claim(tenant_id)
        if stored is not None:
            _refuse_erased(stored)
            self.response.headers[REPLAYED_HEADER] = "true"
            return schema.model_validate_json(stored)
        answer = await produce()
        await IdempotencyRepository(self.session).store(
            tenant_id, self.key, answer.model_dump_json(by_alias=True)
        )
        return answer

    async def once_serialized(
        self, tenant_id: uuid.UUID, produce: Callable[[], Awaitable[str]]
    ) -> Response:
        """As `once`, for a route whose service gives its answer as JSON already; a retry gets
        the stored bytes, never parsed again."""
        if self.key is not None:
            stored = await self._claim(tenant_id)
            if stored is not None:
                _refuse_erased(stored)
                return _json_response(stored, {REPLAYED_HEADER: "true"})
        body = await produce()
        if self.key is not None:
            await IdempotencyRepository(self.session).store(tenant_id, self.key, body)
        return _json_response(body, {})

    async def _claim(self, tenant_id: uuid.UUID) -> str | None:
        assert self.key is not None
        return await IdempotencyRepository(self.session).claim(
            tenant_id, self.key, self.fingerprint, self.path
        )


def _json_response(body: str, headers: dict[str, str]) -> Response:
    return Response(content=body, media_type="application/json", headers=headers)


async def _idempotent_post(
    request: Request, response: Response, session: DbSession, key: IdempotencyKey = None
) -> IdempotentPost:
    if key is None:
        return IdempotentPost(session, response, None, "")
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    fingerprint = request_fingerprint(request.method, target, await canonical_body(request))
    return IdempotentPost(session, response, key, fingerprint, request.url.path)


Idempotent = Annotated[IdempotentPost, Depends(_idempotent_post)]
