"""Appends to one session from several requests at once, each committing for real."""

import asyncio

import httpx
import pytest

from tests.factories import Tenancy, put_agent
from tests.sessions.test_messages_api import MESSAGES, all_messages, say

pytestmark = pytest.mark.committed


async def test_concurrent_appends_number_every_message_once(
    committed_client: httpx.AsyncClient, committed_tenancy: Tenancy
) -> None:
    await put_agent(committed_client, committed_tenancy)

    async def append(writer: int) -> list[int]:
        response = await committed_client.post(
            MESSAGES,
            json={"messages": [say(f"writer {writer} line {line}") for line in range(5)]},
            headers=committed_tenancy.headers,
        )
        assert response.status_code == 201, response.text
        return [message["seq"] for message in response.json()["messages"]]

    # All eight start on a session that does not exist yet: the first creates it.
    numbered = await asyncio.gather(*(append(writer) for writer in range(8)))
    for seqs in numbered:  # each append's messages stay together, in order
        assert seqs == list(range(seqs[0], seqs[0] + 5))
    listed = await all_messages(committed_client, committed_tenancy)
    assert [message["seq"] for message in listed] == list(range(40))
    assert sorted(seq for seqs in numbered for seq in seqs) == list(range(40))
    session = await committed_client.get(
        "/agents/newton/sessions/chat-1", headers=committed_tenancy.headers
    )
    assert session.json()["messages"] == 40
