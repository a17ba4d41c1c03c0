"""A long session's history read in pages: a build reads the session with its last messages,
reads older ones only as far as their stored counts say a selection can reach, and keeps what
a selection over every message would keep."""

import itertools
import uuid
from dataclasses import replace
from typing import Any

import httpx
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.agents.models import Agent
from app.context.history.choice import HistoryMessage, select_history
from app.context.history.reads import readable
from app.core.context_config import WindowSettings
from app.providers.container import Providers
from app.sessions.history_repository import HistoryRepository, Opening, Reach
from app.tenants.models import Tenant
from tests.factories import Tenancy, put_agent

MESSAGES = "/agents/newton/sessions/chat-1/messages"
LENGTH = 600
# A history budget of about 2,700 tokens: some 380 of the short messages below, far more than
# the first read of the session brings (the fresh tail and a message per 64 tokens).
WINDOW = {
    "total": 3_000,
    "system_reserve": 100,
    "tools_reserve": 0,
    "memory_fraction": 0.05,
    "learnings_fraction": 0.0,
    "fresh_tail": 4,
    "sinks": 1,
}


def said(length: int = LENGTH) -> list[dict[str, Any]]:
    opening = {"role": "system", "content": "You are Newton. Be terse."}
    turns = [
        {"role": "user" if i % 2 else "assistant", "content": f"note {i}"} for i in range(1, length)
    ]
    return [opening, *turns]


async def _append(client: httpx.AsyncClient, tenancy: Tenancy) -> list[dict[str, Any]]:
    await put_agent(client, tenancy)
    messages = said()
    for start in range(0, len(messages), 100):
        batch = messages[start : start + 100]
        response = await client.post(MESSAGES, json={"messages": batch}, headers=tenancy.headers)
        assert response.status_code == 201, response.text
    return messages


async def _agent_id(session: AsyncSession, tenancy: Tenancy) -> uuid.UUID:
    """The id of the tenant's agent "newton"."""
    agent_id = await session.scalar(
        select(Agent.id)
        .join(Tenant, Tenant.id == Agent.tenant_id)
        .where(Tenant.name == tenancy.tenant, Agent.name == "newton")
    )
    assert agent_id is not None
    return agent_id


async def test_a_long_session_of_short_messages_keeps_what_reading_all_would(
    client: httpx.AsyncClient, tenancy: Tenancy, providers: Providers
) -> None:
    messages = await _append(client, tenancy)
    body = {"agent_id": "newton", "input": "What next?", "session_id": "chat-1", "window": WINDOW}
    response = await client.post("/context/build", json=body, headers=tenancy.headers)
    assert response.status_code == 200, response.text
    result = response.json()
    budget = result["history"]["window"]["history_budget"]
    everything = [HistoryMessage(seq, m["role"], m["content"]) for seq, m in enumerate(messages)]
    tokens = providers.tokens.bound(providers.tokens.default_encoding)
    chosen = select_history(tokens, everything, budget, sinks=1, fresh_tail=4)
    kept = [{"role": m.role, "content": m.content} for m in chosen.kept]
    assert 300 < len(kept) < LENGTH  # more than the first read brought, fewer than all
    assert result["messages"] == kept
    assert result["history"]["tokens"] == chosen.tokens <= budget


async def test_what_a_build_reads_does_not_depend_on_its_first_read(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    providers: Providers,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    """However many messages the first read brings (none: a session that had efforts, whose
    history is its working memory's), the messages read for a selection are the same."""
    await _append(client, tenancy)
    window = WindowSettings.model_validate(WINDOW)
    tokens = providers.tokens.bound(providers.tokens.default_encoding)
    async with sessionmaker() as session:
        agent_id = await _agent_id(session, tenancy)
        reads = HistoryRepository(session)
        for budget in (200, 2_700, 20_000):
            found = []
            for last, reach in itertools.product((0, 30, 1_000), (Reach(), Reach(50))):
                opened = await reads.opening(
                    agent_id, "chat-1", first=1, fresh_tail=4, last=last, reach=reach, long=0
                )
                assert opened is not None
                bare = Opening(replace(opened.session, had_efforts=True), [], LENGTH)
                for first_read in (opened, bare):
                    read = await readable(reads, first_read, tokens, window, budget, 0)
                    found.append([m.seq for m in read])
            assert all(seqs == found[0] for seqs in found)
            sinks, *rest = found[0]
            assert sinks == 0  # the sink, then every message from the oldest one kept on
            assert rest == list(range(rest[0], LENGTH))


async def test_old_messages_are_costed_before_they_are_read_whole(
    client: httpx.AsyncClient, tenancy: Tenancy, sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    """A session of long messages (tool output, say): its first read brings every message's
    cost, and the content only of those the budget can reach, the sinks and the fresh tail."""
    await put_agent(client, tenancy)
    long = [{"role": "tool", "content": "row " * 2_000, "tool_call_id": f"c{i}"} for i in range(40)]
    opening = {"role": "system", "content": "You are Newton."}
    batch = [opening, *long, {"role": "user", "content": "And now?"}]
    response = await client.post(MESSAGES, json={"messages": batch}, headers=tenancy.headers)
    assert response.status_code == 201, response.text
    async with sessionmaker() as session:
        agent_id = await _agent_id(session, tenancy)
        opened = await HistoryRepository(session).opening(
            agent_id, "chat-1", first=1, fresh_tail=2, last=42, reach=Reach(5_000), long=0
        )
    assert opened is not None
    assert [m.seq for m in opened.messages] == list(range(42))  # every cost
    whole = [m.seq for m in opened.messages if m.content is not None]
    # The sink, the fresh tail, and the two older ones the 5,000 tokens reach (the second
    # takes them past it: the oldest a selection could keep).
    assert whole == [0, 38, 39, 40, 41]
