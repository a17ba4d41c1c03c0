"""Tenants and keys: authentication and the key commands."""

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import Unauthorized
from app.core.security import hash_key, key_prefix, new_api_key
from app.tenants.models import Tenant
from app.tenants.repository import TenantRepository


@dataclass(frozen=True)
class IssuedKey:
    """A key as issued: the secret is shown this once and never stored."""

    key: str
    prefix: str
    tenant: str


async def authenticate(session: AsyncSession, key: str | None) -> Tenant:
    """The tenant of a bearer key, or 401."""
    if not key or not key.strip():
        raise Unauthorized(
            "Send `Authorization: Bearer <key>`. `make run` prints a key at first start and "
            "keeps it in .data/api-key; `python -m app keys create` makes another."
        )
    tenant = await TenantRepository(session).by_key_hash(hash_key(key.strip()))
    if tenant is None:
        raise Unauthorized("This API key is unknown or revoked.")
    return tenant


async def create_key(session: AsyncSession, tenant_name: str, key_name: str) -> IssuedKey:
    """Issue a key for a tenant, creating the tenant if it is new."""
    repository = TenantRepository(session)
    tenant = await repository.by_name(tenant_name) or await repository.add_tenant(tenant_name)
    key = new_api_key()
    await repository.add_key(tenant, key_name, key_prefix(key), hash_key(key))
    return IssuedKey(key=key, prefix=key_prefix(key), tenant=tenant.name)


async def revoke_key(session: AsyncSession, prefix_or_id: str) -> int:
    """Revoke a key by its prefix or id."""
    return await TenantRepository(session).revoke_key(prefix_or_id)


async def has_keys(session: AsyncSession) -> bool:
    """Whether any key was ever issued."""
    return await TenantRepository(session).count_keys() > 0


async def list_keys(session: AsyncSession) -> list[str]:
    """One line per key: prefix, tenant, name, and whether it is revoked."""
    lines = []
    for key, tenant in await TenantRepository(session).keys():
        status = f"revoked {key.revoked_at:%Y-%m-%d}" if key.revoked_at else "active"
        lines.append(f"{key.prefix}…  tenant={tenant.name}  name={key.name}  {status}  id={key.id}")
    return lines


async def lock_bootstrap(session: AsyncSession) -> None:
    """Serialise first-start key issuing across replicas until the transaction ends."""
    await TenantRepository(session).lock_bootstrap()
