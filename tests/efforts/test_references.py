"""References keep an effort in working memory: its id named, two of its keywords in a user's
or the assistant's message, a tool call on it (the service function the tools call), or feedback
on a build whose reply refers to it. Search finds efforts by their words, evicted ones too."""

import httpx
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.context_config import EffortSettings
from app.core.worker import Worker
from app.efforts.service import Where, reference
from app.providers.container import Providers
from app.tenants.models import Tenant
from tests.efforts.helpers import EFFORTS, act, build, efforts, open_effort, say
from tests.factories import Tenancy, put_agent


async def concluded_effort(client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker) -> None:
    """e_1, about the invoice report, concluded and summarized; the session at turn 2."""
    await put_agent(client, tenancy)
    await open_effort(client, tenancy, "Invoice report speed")
    await say(
        client,
        tenancy,
        ("user", "The invoice report query scans every customer row."),
        ("assistant", "An index on invoices by customer makes the report fast."),
    )
    await say(client, tenancy, ("user", "Ship the index."), ("assistant", "Shipped."))
    assert (await act(client, tenancy, "e_1", "conclude")).status_code == 200
    await worker.drain()


async def last_referenced(client: httpx.AsyncClient, tenancy: Tenancy) -> int:
    return int((await efforts(client, tenancy))["e_1"]["last_referenced_turn"])


async def test_messages_refer_by_id_or_two_keywords(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    await concluded_effort(client, tenancy, worker)
    assert await last_referenced(client, tenancy) == 2
    await say(client, tenancy, ("user", "How is the invoice for lunch?"))  # one keyword: no
    assert await last_referenced(client, tenancy) == 2
    await say(client, tenancy, ("system", "Mention e_1 when asked."))  # a system message: no
    await say(client, tenancy, ("user", "Anything else?"), ("assistant", "See e_1."))  # turn 4
    assert await last_referenced(client, tenancy) == 4
    await say(client, tenancy, ("user", "Is the customers report index still fast?"))  # turn 5
    assert await last_referenced(client, tenancy) == 5
    await say(client, tenancy, ("user", "And e_12 or ee_1?"))  # other ids: no
    assert await last_referenced(client, tenancy) == 5


async def test_a_tool_call_and_feedback_on_a_build_count(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    worker: Worker,
    providers: Providers,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    await concluded_effort(client, tenancy, worker)
    await say(client, tenancy, ("user", "Next topic."))  # turn 3
    async with sessionmaker.begin() as session:
        tenant = await session.scalar(select(Tenant).where(Tenant.name == tenancy.tenant))
        assert tenant is not None
        read = await reference(session, tenant, Where("newton", "work-1"), "e_1", EffortSettings())
    assert read.last_referenced_turn == 3
    await say(client, tenancy, ("user", "And now?"))  # turn 4
    result = await build(client, tenancy, providers, "And now?")
    reply = {"reply": "The invoices index by customer still keeps the report fast."}
    feedback = await client.post(
        f"/context/{result['context_id']}/feedback", json=reply, headers=tenancy.headers
    )
    assert feedback.status_code == 200, feedback.text
    assert await last_referenced(client, tenancy) == 4


async def test_search_finds_efforts_by_their_words_or_id(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    await concluded_effort(client, tenancy, worker)
    await open_effort(client, tenancy, "Sailing trip", "Charter a catamaran for the islands.")

    async def search(query: str) -> list[str]:
        response = await client.get(
            f"{EFFORTS}/search", params={"query": query}, headers=tenancy.headers
        )
        assert response.status_code == 200, response.text
        return [item["effort"]["effort_id"] for item in response.json()["items"]]

    assert await search("slow invoices reports") == ["e_1"]  # stemmed words of its summary
    assert await search("catamarans") == ["e_2"]  # of its goal
    assert await search("e_2") == ["e_2"]
    assert await search("the and of") == []
    assert await search("quantum chromodynamics") == []


async def test_search_finds_an_effort_by_the_meaning_of_its_messages(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    await put_agent(client, tenancy)
    await open_effort(client, tenancy, "Holiday")
    await say(
        client,
        tenancy,
        ("user", "Plan the sailing trip to the Croatian islands in June on a catamaran."),
        ("assistant", "Charter the catamaran from Split; the route takes six days."),
    )
    await act(client, tenancy, "e_1", "conclude")
    await worker.drain()  # the summary and the messages' vectors
    response = await client.get(
        f"{EFFORTS}/search",
        params={"query": "a summer boat vacation on the Adriatic sea"},
        headers=tenancy.headers,
    )
    (found,) = response.json()["items"]
    assert (found["effort"]["effort_id"], found["by"]) == ("e_1", "meaning")
    assert found["similarity"] >= EffortSettings().search_min_similarity
    unrelated = await client.get(
        f"{EFFORTS}/search", params={"query": "quarterly tax filing"}, headers=tenancy.headers
    )
    assert unrelated.json()["items"] == []
    # The model's search_memory finds it the same way, with the query's vector it made once.
    tool = await client.post(
        "/agents/newton/tools/search_memory",
        json={
            "arguments": {
                "query": "a summer boat vacation on the Adriatic sea",
                "session_id": "work-1",
            }
        },
        headers=tenancy.headers,
    )
    assert tool.status_code == 200, tool.text
    assert "[effort e_1] Holiday" in tool.json()["content"]
