"""API keys: every data route needs one; probes and docs do not."""

import httpx
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.security import key_prefix
from app.tenants.service import revoke_key
from tests.factories import Tenancy


async def test_missing_key_is_401_problem(client: httpx.AsyncClient) -> None:
    response = await client.get("/agents/newton")
    assert response.status_code == 401
    assert response.headers["content-type"] == "application/problem+json"
    assert response.headers["www-authenticate"] == "Bearer"
    assert "make run" in response.json()["detail"]


async def test_unknown_key_is_401(client: httpx.AsyncClient) -> None:
    response = await client.get("/agents/newton", headers={"Authorization": "Bearer ce_nope"})
    assert response.status_code == 401


async def test_revoked_key_stops_working(
    client: httpx.AsyncClient, tenancy: Tenancy, sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    assert (await client.get("/agents/x", headers=tenancy.headers)).status_code == 404
    async with sessionmaker.begin() as session:
        assert await revoke_key(session, key_prefix(tenancy.key)) == 1
    assert (await client.get("/agents/x", headers=tenancy.headers)).status_code == 401


async def test_probes_metrics_and_docs_need_no_key(client: httpx.AsyncClient) -> None:
    for path in ("/healthz", "/readyz", "/metrics", "/docs", "/openapi.json"):
        assert (await client.get(path)).status_code == 200, path
