"""Hybrid search returns the full number of rows for one agent among many, exact or by HNSW."""

import uuid

import httpx
import numpy as np
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
    query = np.asarray(vector, dtype=np.float32)
    async with sessionmaker() as session:
        tenant = await TenantRepository(session).by_name(tenancy.tenant)
        assert tenant is not None
        agent_row = await AgentRepository(session).get(tenant.id, "newton")
        assert agent_row is not None
        for exact in (True, False):
            found = await ContextRepository(session).search(
                SearchSpec(
                    agent_id=agent_row.id,
                    words="",
                    kinds=["fact"],
                    metadata=None,
                    vector_limit=25,
                    text_limit=25,
                    exact=exact,
                    corpus_size=40,
                    common_word_memories=500,
                ),
                query,
            )
            assert len(found) == 25, exact
            assert all(c.summary.startswith("newton note") for c in found)
            assert all(c.vector_rank is not None and c.semantic is not None for c in found)
        empty = await ContextRepository(session).search(
            SearchSpec(
                agent_id=uuid.uuid4(),
                words="database",
                kinds=["fact"],
                metadata=None,
                vector_limit=25,
                text_limit=25,
                exact=True,
                corpus_size=0,
                common_word_memories=500,
            ),
            query,
        )
        assert empty == []


async def test_rare_words_weigh_more_and_common_words_are_left_out(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    await put_agent(client, tenancy, "lexicon")
    notes = [fact(f"harbour log {i}: the ferry left on time") for i in range(6)]
    notes.append(fact("the lighthouse keeper repaired the ferry ramp"))
    response = await client.post(
        "/agents/lexicon/memories/batch", headers=tenancy.headers, json={"memories": notes}
    )
    assert response.status_code == 201
    async with sessionmaker() as session:
        tenant = await TenantRepository(session).by_name(tenancy.tenant)
        assert tenant is not None
        agent_row = await AgentRepository(session).get(tenant.id, "lexicon")
        assert agent_row is not None

        async def search(common: int) -> dict[str, float]:
            found = await ContextRepository(session).search(
                SearchSpec(
                    agent_id=agent_row.id,
                    words="harbour lighthouse",
                    kinds=["fact"],
                    metadata=None,
                    vector_limit=20,
                    text_limit=20,
                    exact=True,
                    corpus_size=7,
                    common_word_memories=common,
                ),
                None,  # words only: nothing is embedded yet
            )
            return {c.summary: c.lexical for c in found}

        weighed = await search(common=500)
        keeper = weighed.pop("the lighthouse keeper repaired the ferry ramp")
        assert len(weighed) == 6
        assert all(
            keeper > score > 0 for score in weighed.values()
        )  # one rare word beats a common one
        # "harbour" is in six memories: above a cap of five it no longer finds anything.
        assert list(await search(common=5)) == ["the lighthouse keeper repaired the ferry ramp"]


async def test_a_memory_found_by_words_and_meaning_keeps_both_ranks(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    worker: Worker,
    providers: Providers,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    await put_agent(client, tenancy, "keeper")
    notes = [
        fact("The lighthouse lamp is serviced every spring."),
        fact("Ferry tickets are sold at the harbour office."),
        fact("The lighthouse keeper logs the weather at dawn."),
    ]
    response = await client.post(
        "/agents/keeper/memories/batch", headers=tenancy.headers, json={"memories": notes}
    )
    assert response.status_code == 201
    await worker.drain()
    (vector,) = await providers.embedder.embed(["lighthouse maintenance"])
    query = np.asarray(vector, dtype=np.float32)
    async with sessionmaker() as session:
        tenant = await TenantRepository(session).by_name(tenancy.tenant)
        assert tenant is not None
        agent_row = await AgentRepository(session).get(tenant.id, "keeper")
        assert agent_row is not None
        found = await ContextRepository(session).search(
            SearchSpec(
                agent_id=agent_row.id,
                words="lighthouse maintenance",
                kinds=["fact"],
                metadata=None,
                vector_limit=3,
                text_limit=3,
                exact=True,
                corpus_size=3,
                common_word_memories=500,
            ),
            query,
        )
    by_text = {c.summary: c for c in found}
    assert len(found) == 3  # each memory once, whichever search found it
    lamp = by_text["The lighthouse lamp is serviced every spring."]
    assert lamp.text_rank is not None
    assert lamp.vector_rank is not None
    assert lamp.lexical > 0
    ferry = by_text["Ferry tickets are sold at the harbour office."]
    assert ferry.text_rank is None
    assert ferry.lexical == 0
    assert ferry.vector_rank is not None
    for candidate in found:  # the cosine to the input, for word matches too
        assert candidate.embedding is not None
        assert candidate.semantic is not None
        assert abs(candidate.semantic - float(candidate.embedding @ query)) < 1e-5
    assert lamp.semantic is not None
    assert ferry.semantic is not None
    assert lamp.semantic > ferry.semantic
