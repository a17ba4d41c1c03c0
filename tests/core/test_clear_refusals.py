"""Refusals that say exactly what is wrong: a rule across two fields, a model whose tokens the
service cannot count, a body of two shapes; and every answer is what its content-type says."""

import httpx
import pytest

from tests.factories import Tenancy, put_agent, write

EPISODE = {
    "kind": "episode",
    "detail": "The deploy went out.",
    "started_at": "2026-11-02T16:00:00Z",
    "ended_at": "2026-11-02T14:00:00Z",
}


async def test_an_episode_that_ends_before_it_starts_is_422(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    for path, body in (
        ("/agents/newton/memories", EPISODE),
        ("/agents/newton/memories/batch", {"memories": [EPISODE]}),
    ):
        response = await client.post(path, json=body, headers=tenancy.headers)
        assert response.status_code == 422, response.text
        [error] = response.json()["errors"]
        assert error["loc"][-1] == "ended_at"
        assert "before it starts" in error["msg"]
    listed = await client.get("/agents/newton/memories", headers=tenancy.headers)
    assert listed.json()["items"] == []
    same_time = EPISODE | {"ended_at": EPISODE["started_at"]}
    assert (await write(client, tenancy, same_time))["kind"] == "episode"


@pytest.mark.parametrize("model", ["text-davinci-003", "davinci", "code-davinci-002"])
async def test_a_model_counted_with_a_vocabulary_not_shipped_is_422(
    client: httpx.AsyncClient, tenancy: Tenancy, model: str
) -> None:
    await put_agent(client, tenancy)
    refused = [
        await client.put(
            "/agents/newton",
            json={"identity": {"name": "Newton"}, "model": model},
            headers=tenancy.headers,
        ),
        await client.post(
            "/context/build",
            json={"agent_id": "newton", "input": "Hello?", "model": model},
            headers=tenancy.headers,
        ),
        await client.post(
            "/agents/newton/tools/search_memory",
            json={"arguments": {"query": "x"}, "model": model},
            headers=tenancy.headers,
        ),
    ]
    for response in refused:
        assert response.status_code == 422, response.text
        [error] = response.json()["errors"]
        assert error["loc"] == ["body", "model"]
        assert "gpt-4o" in error["msg"]  # what to name instead
    agent = await client.get("/agents/newton", headers=tenancy.headers)
    assert agent.json()["model"] is None  # the refused PUT changed nothing
    # A model tiktoken does not know is counted with the default, as before.
    other = await client.post(
        "/context/build",
        json={"agent_id": "newton", "input": "Hello?", "model": "llama-3.1-70b"},
        headers=tenancy.headers,
    )
    assert other.status_code == 200, other.text
    assert other.json()["totals"]["encoding"] == "o200k_base"


async def test_feedback_names_the_field_at_fault_alone(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    built = await client.post(
        "/context/build", json={"agent_id": "newton", "input": "Hello?"}, headers=tenancy.headers
    )
    url = f"/context/{built.json()['context_id']}/feedback"
    response = await client.post(url, json={"reply": "Yes\u0000."}, headers=tenancy.headers)
    assert response.status_code == 422
    [error] = response.json()["errors"]
    assert error["loc"] == ["body", "reply"]
    assert response.json()["detail"].startswith("body.reply:")
    both = await client.post(
        url, json={"reply": "Yes.", "used_memory_ids": []}, headers=tenancy.headers
    )
    assert both.status_code == 422
    assert "either used_memory_ids" in both.json()["detail"]


async def test_every_answer_forbids_content_sniffing(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    answers = [
        await client.get("/healthz"),
        await client.get("/metrics"),
        await client.get("/agents/nobody", headers=tenancy.headers),
        await client.get("/agents/nobody"),
        await client.get("/openapi.json"),
    ]
    for response in answers:
        assert response.headers["x-content-type-options"] == "nosniff", response.url
