"""SQL of tenants and API keys."""

import contextlib
import uuid

from sqlalchemy import func, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.time import utcnow
from app.tenants.models import ApiKey, Tenant

_BOOTSTRAP_LOCK = 7_241_530_118  # any constant shared by every replica
# Every request's first statement, so plain SQL: no ORM loading of a `Tenant` row.
_BY_KEY_HASH = text(
    "SELECT t.id, t.name FROM tenant t JOIN api_key k ON k.tenant_id = t.id "
    "WHERE k.key_hash = :key_hash AND k.revoked_at IS NULL"
)


class TenantRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def by_key_hash(self, key_hash: str) -> Tenant | None:
        """The tenant of an unrevoked key (its id and name: not attached to the session)."""
        row = (await self.session.execute(_BY_KEY_HASH, {"key_hash": key_hash})).first()
        return None if row is None else Tenant(id=row.id, name=row.name)

    async def by_name(self, name: str) -> Tenant | None:
        return await self.session.scalar(select(Tenant).where(Tenant.name == name))

    async def add_tenant(self, name: str) -> Tenant:
        tenant = Tenant(id=uuid.uuid4(), name=name)
        self.session.add(tenant)
        await self.session.flush()
        return tenant

    async def add_key(self, tenant: Tenant, name: str, prefix: str, key_hash: str) -> ApiKey:
        api_key = ApiKey(
            id=uuid.uuid4(), tenant_id=tenant.id, name=name, prefix=prefix, key_hash=key_hash
        )
        self.session.add(api_key)
        await self.session.flush()
        return api_key

    async def revoke_key(self, prefix_or_id: str) -> int:
        """Revoke keys by id or displayed prefix; returns how many were revoked."""
        condition = ApiKey.prefix == prefix_or_id
        with contextlib.suppress(ValueError):
            condition = condition | (ApiKey.id == uuid.UUID(prefix_or_id))
        result = await self.session.execute(
            update(ApiKey).where(condition, ApiKey.revoked_at.is_(None)).values(revoked_at=utcnow())
        )
        return int(getattr(result, "rowcount", 0))

    async def keys(self) -> list[tuple[ApiKey, Tenant]]:
        rows = await self.session.execute(
            select(ApiKey, Tenant).join(Tenant).order_by(ApiKey.created_at)
        )
        return [(row[0], row[1]) for row in rows]

    async def count_keys(self) -> int:
        return int(await self.session.scalar(select(func.count()).select_from(ApiKey)) or 0)

    async def lock_bootstrap(self) -> None:
        await self.session.execute(
            text("SELECT pg_advisory_xact_lock(:key)"), {"key": _BOOTSTRAP_LOCK}
        )
