"""Small typed factories for test data, and how PostgreSQL stores it (`vector_storage`)."""

import uuid
from dataclasses import dataclass
from typing import Any

import httpx
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.tenants.service import create_key


@dataclass(frozen=True)
class Tenancy:
    tenant: str
    key: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}


async def new_tenancy(sessionmaker: async_sessionmaker[AsyncSession]) -> Tenancy:
    async with sessionmaker.begin() as session:
        issued = await create_key(session, f"tenant-{uuid.uuid4().hex[:8]}", "test")
    return Tenancy(issued.tenant, issued.key)


async def remove_tenancy(sessionmaker: async_sessionmaker[AsyncSession], tenancy: Tenancy) -> None:
    """Delete a committed tenant with everything it owns."""
    async with sessionmaker.begin() as session:
        owned = {"tenant": tenancy.tenant}
        tenant_id = "(SELECT id FROM tenant WHERE name = :tenant)"
        # Jobs and session messages go with their memory and session (foreign key cascades).
        owned_tables = (
            "context_build",
            "memory",
            "conversation_session",
            "agent",
            "idempotency_record",
            "api_key",
        )
        for table in owned_tables:
            await session.execute(text(f"DELETE FROM {table} WHERE tenant_id = {tenant_id}"), owned)
        await session.execute(text("DELETE FROM tenant WHERE name = :tenant"), owned)


async def put_agent(client: httpx.AsyncClient, tenancy: Tenancy, name: str = "newton") -> None:
    response = await client.put(
        f"/agents/{name}",
        json={"identity": {"name": name.title(), "traits": ["analytical"]}},
        headers=tenancy.headers,
    )
    assert response.status_code == 200, response.text


def fact(content: str = "Redis adds a separate service to run.", **extra: Any) -> dict[str, Any]:
    return {"kind": "fact", "content": content, **extra}


def decision(text: str = "Chose Postgres over ChromaDB", **extra: Any) -> dict[str, Any]:
    return {
        "kind": "decision",
        "decision": text,
        "reasons": ["One backup"],
        "alternatives": ["ChromaDB"],
        "confidence": 0.8,
        **extra,
    }


def procedure(name: str = "Deploy", description: str = "Ship it.") -> dict[str, Any]:
    return {"kind": "procedure", "name": name, "description": description}


async def write(
    client: httpx.AsyncClient, tenancy: Tenancy, body: dict[str, Any], agent: str = "newton"
) -> dict[str, Any]:
    response = await client.post(f"/agents/{agent}/memories", json=body, headers=tenancy.headers)
    assert response.status_code == 201, response.text
    result: dict[str, Any] = response.json()
    return result


async def vector_storage(
    sessionmaker: async_sessionmaker[AsyncSession],
    table: str = "session_message",
    column: str = "embedding",
) -> str:
    """How PostgreSQL stores a table's vectors: `m` (MAIN) keeps them in the row, where a
    scan reads them without a trip to the TOAST table."""
    async with sessionmaker() as session:
        found = await session.scalar(
            text(
                "SELECT CAST(attstorage AS text) FROM pg_attribute "
                "WHERE attrelid = CAST(:table AS regclass) AND attname = :column"
            ),
            {"table": table, "column": column},
        )
    return str(found)
