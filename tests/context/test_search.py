"""Hybrid search returns the full number of rows for one agent among many, exact or by HNSW."""

import uuid

import httpx
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.agents.repository import AgentRepository
from app.context.repository import ContextRepository, SearchSpec
from app.core.worker import Worker
from app.providers.container import Providers
from app.tenants.repository import TenantRepository
from tests.factories import Tenancy, fact, put_agent


async def test_filtered_vector_search_fills_the_limit(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    worker: Worker,
    providers: Providers,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    for agent, count in (("crowd", 300), ("newton", 40)):
        await put_agent(client, tenancy, agent)
        for start in range(0, count, 100):
            batch = [
                fact(f"{agent} note {i}: deployment, caching and database tuning")
                for i in range(start, min(start + 100, count))
            ]
            response = await client.post(
                f"/agents/{agent}/memories/batch", headers=tenancy.headers, json={"memories": batch}
            )
            assert response.status_code == 201
    await worker.drain()
    (vector,) = await providers.embedder.embed(["database tuning"])
    async with sessionmaker() as session:
        tenant = await TenantRepository(session).by_name(tenancy.tenant)
        assert tenant is not None
        agent_row = await AgentRepository(session).get(tenant.id, "newton")
        assert agent_row is not None
        for exact in (True, False):
            found = await ContextRepository(session).search(
                SearchSpec(
                    agent_id=agent_row.id,
                    vector=vector,
                    words="",
                    kinds=["fact"],
                    metadata=None,
                    vector_limit=25,
                    text_limit=25,
                    exact=exact,
                )
            )
            assert len(found) == 25, exact
            assert all(c.summary.startswith("newton note") for c in found)
            assert all(c.vector_rank is not None and c.semantic is not None for c in found)
        empty = await ContextRepository(session).search(
            SearchSpec(
                agent_id=uuid.uuid4(),
                vector=vector,
                words="database",
                kinds=["fact"],
                metadata=None,
                vector_limit=25,
                text_limit=25,
                exact=True,
            )
        )
        assert empty == []
