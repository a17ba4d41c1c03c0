"""Hybrid search: the full number of rows for one agent among many, exact or by HNSW; words
weighed by rarity; a memory both searches find, once with both ranks; the turns around the
strongest episode hits. Each search runs as a build runs it: the words, then the rest."""

import dataclasses
import uuid
from typing import Any

import httpx
import numpy as np
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.agents.repository import AgentRepository
from app.context.retrieval.corpus import CorpusStats
from app.context.retrieval.search import SearchRepository
from app.context.retrieval.search_sql import SearchSpec
from app.context.types import Candidate, Neighbours, Vector
from app.core.worker import Worker
from app.providers.container import Providers
from app.tenants.repository import TenantRepository
from tests.factories import Tenancy, fact, put_agent, write


async def write_facts(
    client: httpx.AsyncClient, tenancy: Tenancy, agent: str, texts: list[str]
) -> None:
    await put_agent(client, tenancy, agent)
    for start in range(0, len(texts), 100):
        batch = [fact(text) for text in texts[start : start + 100]]
        response = await client.post(
            f"/agents/{agent}/memories/batch", headers=tenancy.headers, json={"memories": batch}
        )
        assert response.status_code == 201


async def embed(providers: Providers, text: str) -> Vector:
    (vector,) = await providers.embedder.embed([text])
    return np.asarray(vector, dtype=np.float32)


async def agent_id(session: AsyncSession, tenancy: Tenancy, name: str) -> uuid.UUID:
    tenant = await TenantRepository(session).by_name(tenancy.tenant)
    assert tenant is not None
    agent = await AgentRepository(session).get(tenant.id, name)
    assert agent is not None
    return agent.id


async def search(
    session: AsyncSession,
    spec: SearchSpec,
    vector: Vector | None,
    neighbours: Neighbours = Neighbours(),  # noqa: B008 - frozen, never changed
) -> list[Candidate]:
    """Both halves of a search, with corpus figures of its own."""
    repository = SearchRepository(session, CorpusStats())
    return await repository.finish(spec, await repository.match_words(spec), vector, neighbours)


def spec(agent: uuid.UUID, words: str, size: int, **changes: Any) -> SearchSpec:
    fields: dict[str, Any] = {
        "agent_id": agent,
        "words": words,
        "kinds": ["fact"],
        "metadata": None,
        "vector_limit": 25,
        "text_limit": 25,
        "exact": True,
        "corpus_size": size,
        "common_word_memories": 500,
    }
    return SearchSpec(**(fields | changes))


async def test_filtered_vector_search_fills_the_limit(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    worker: Worker,
    providers: Providers,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    for agent, count in (("crowd", 300), ("newton", 40)):
        notes = [f"{agent} note {i}: deployment, caching and database tuning" for i in range(count)]
        await write_facts(client, tenancy, agent, notes)
    await worker.drain()
    query = await embed(providers, "database tuning")
    async with sessionmaker() as session:
        newton = await agent_id(session, tenancy, "newton")
        # As on a big agent, the approximate search reads the HNSW index, which holds every
        # agent's memories: most of its nearest rows are the crowd's. Without the connection's
        # iterative scan (`vector_search_settings`) it finds 12 of newton's notes, not 25.
        await session.execute(text("SET LOCAL enable_seqscan = off"))
        await session.execute(text("SET LOCAL enable_sort = off"))
        for exact in (True, False):
            found = await search(session, spec(newton, "", 40, exact=exact), query)
            assert len(found) == 25, exact
            assert all(c.summary.startswith("newton note") for c in found)
            assert all(c.semantic is not None for c in found)
        empty = await search(session, spec(uuid.uuid4(), "database", 0), query)
        assert empty == []


async def test_rare_words_weigh_more_and_common_words_are_left_out(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    notes = [f"harbour log {i}: the ferry left on time" for i in range(6)]
    notes.append("the lighthouse keeper repaired the ferry ramp")
    await write_facts(client, tenancy, "lexicon", notes)
    async with sessionmaker() as session:
        lexicon = await agent_id(session, tenancy, "lexicon")

        async def by_words(common: int) -> dict[str, float]:
            found = await search(
                session,
                spec(lexicon, "harbour lighthouse", 7, common_word_memories=common),
                None,  # words only: nothing is embedded yet
            )
            return {c.summary: c.lexical for c in found}

        weighed = await by_words(common=500)
        keeper = weighed.pop("the lighthouse keeper repaired the ferry ramp")
        assert len(weighed) == 6
        assert all(
            keeper > score > 0 for score in weighed.values()
        )  # one rare word beats a common one
        # "harbour" is in six memories: above a cap of five it no longer finds anything.
        assert list(await by_words(common=5)) == ["the lighthouse keeper repaired the ferry ramp"]
        # What a memory holding both words would weigh, against which the keeper's one word
        # and the logs' one word are measured as well as against each other.
        words = SearchRepository(session, CorpusStats())
        both = spec(lexicon, "harbour lighthouse", 7, word_match_terms=2)
        reference = (await words.match_words(both)).reference
        assert reference == pytest.approx(keeper + max(weighed.values()), rel=1e-9)
        rarest = dataclasses.replace(both, word_match_terms=1)
        assert (await words.match_words(rarest)).reference == pytest.approx(keeper, rel=1e-9)
        # Words that only memories this search cannot find hold weigh nothing here.
        decisions = dataclasses.replace(both, kinds=["decision"])
        assert (await words.match_words(decisions)).reference == 0.0


async def test_a_memory_found_by_words_and_meaning_comes_once_with_both_scores(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    worker: Worker,
    providers: Providers,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    notes = [
        "The lighthouse lamp is serviced every spring.",
        "Ferry tickets are sold at the harbour office.",
        "The lighthouse keeper logs the weather at dawn.",
    ]
    await write_facts(client, tenancy, "keeper", notes)
    await worker.drain()
    query = await embed(providers, "lighthouse maintenance")
    async with sessionmaker() as session:
        keeper = await agent_id(session, tenancy, "keeper")
        found = await search(
            session, spec(keeper, "lighthouse maintenance", 3, vector_limit=3, text_limit=3), query
        )
    by_text = {c.summary: c for c in found}
    assert len(found) == 3  # each memory once, whichever search found it
    lamp = by_text["The lighthouse lamp is serviced every spring."]
    assert lamp.lexical > 0  # found by its words (and by meaning: all three are the nearest)
    ferry = by_text["Ferry tickets are sold at the harbour office."]
    assert ferry.lexical == 0  # found by meaning alone
    for candidate in found:  # the cosine to the input, for word matches too
        assert candidate.embedding is not None
        assert candidate.semantic is not None
        assert abs(candidate.semantic - float(candidate.embedding @ query)) < 1e-5
    assert lamp.semantic is not None
    assert ferry.semantic is not None
    assert lamp.semantic > ferry.semantic


async def test_the_turns_around_the_strongest_episode_hits_come_along(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    worker: Worker,
    providers: Providers,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    turns = [
        "Melanie: I finally signed up for the pottery class!",
        "Caroline: That's great, when does the pottery class start?",
        "Melanie: Next Tuesday at the community center.",
        "Caroline: I adopted a puppy named Biscuit last week.",
        "Melanie: The harbour festival is in June.",
    ]
    await put_agent(client, tenancy, "diary")
    ids = []
    for turn in turns:
        episode = {"kind": "episode", "detail": turn, "started_at": "2023-05-08T13:56:00Z"}
        ids.append((await write(client, tenancy, episode, agent="diary"))["id"])
    async with sessionmaker() as session:
        diary = await agent_id(session, tenancy, "diary")
        around = Neighbours(hits=1, window=2)
        episodes = spec(diary, "signed pottery", 5, kinds=["episode"])
        found = await search(session, episodes, None, around)
        by_id = {str(c.memory_id): c for c in found}
        # The first turn matches both words; the two after it come along. The second matched a
        # word too: it keeps its own score and learns whose neighbour it is.
        assert set(by_id) == set(ids[:3])
        assert by_id[ids[0]].neighbour_of is None
        assert by_id[ids[1]].lexical > 0
        assert by_id[ids[2]].lexical == 0
        assert [str(by_id[i].neighbour_of) for i in ids[1:3]] == [ids[0], ids[0]]
        # Without neighbours the search finds only what matches.
        alone = await search(session, episodes, None)
        assert {str(c.memory_id) for c in alone} == set(ids[:2])

    await worker.drain()
    query = await embed(providers, "a puppy named Biscuit")
    async with sessionmaker() as session:
        nearest = spec(diary, "", 5, kinds=["episode"], vector_limit=1)
        found = await search(session, nearest, query, Neighbours(hits=1, window=1))
    by_id = {str(c.memory_id): c for c in found}
    assert set(by_id) == set(ids[2:5])  # the nearest turn by meaning and one on each side
    assert str(max(found, key=lambda c: c.semantic or 0.0).memory_id) == ids[3]
    assert all(str(by_id[i].neighbour_of) == ids[3] and by_id[i].semantic for i in (ids[2], ids[4]))


async def test_a_memory_written_after_a_build_is_found_by_its_words_at_once(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    """The agent's size is counted once a minute: a build keeps "no memories" for the next, and a
    memory written between them is found by its words all the same (no worker ran: no vector)."""
    await put_agent(client, tenancy)
    body = {"agent_id": "newton", "input": "When is the deploy window?", "budget": 1000}
    first = await client.post("/context/build", json=body, headers=tenancy.headers)
    assert first.status_code == 200, first.text
    await write(client, tenancy, fact("The deploy window is Tuesday 09:00 UTC."))
    second = await client.post("/context/build", json=body, headers=tenancy.headers)
    assert second.status_code == 200, second.text
    assert "The deploy window is Tuesday 09:00 UTC." in second.json()["context"]
