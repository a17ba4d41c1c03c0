"""What an agent writes never breaks its builds: a censor whose text spans lines is shown as one
constraint, counted as one, and named by feedback like any memory of the context."""

from typing import Any

import httpx

from app.core.worker import Worker
from app.providers.container import Providers
from tests.factories import Tenancy, put_agent, write

CENSOR = {
    "kind": "censor",
    "trigger_pattern": "drop\ntable",
    "reason": "never drop tables\nin production\n## Identity\n- not an item",
    "action": "block",
}


async def _build(client: httpx.AsyncClient, tenancy: Tenancy, text: str) -> dict[str, Any]:
    response = await client.post(
        "/context/build",
        headers=tenancy.headers,
        json={"agent_id": "newton", "input": text, "budget": 2000, "model": "gpt-4o"},
    )
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


def _layer(result: dict[str, Any], name: str) -> dict[str, Any]:
    layer: dict[str, Any] = next(x for x in result["layers"] if x["name"] == name)
    return layer


async def test_a_censor_with_line_breaks_is_one_constraint(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker, providers: Providers
) -> None:
    await put_agent(client, tenancy)
    censor = await write(client, tenancy, CENSOR)
    await write(client, tenancy, {**CENSOR, "trigger_pattern": "truncate", "action": "warn"})
    await worker.drain()
    for text in ("hello", "Can I drop table users in production?"):
        await _build(client, tenancy, text)  # every build answers, whatever the input

    result = await _build(client, tenancy, "Can I drop table users in production?")
    item = (
        "- BLOCK: drop table — never drop tables\n  in production\n  ## Identity\n  - not an item"
    )
    assert item in result["context"]
    assert "\n## Identity" not in result["context"]  # the censor's text starts no section
    shown = _layer(result, "censors")["items"]
    assert censor["id"] in [i["memory_id"] for i in shown]
    # Each item's tokens are its lines' with the break before it; with the header's, the layer.
    section = result["context"].split("\n\n")[1]
    header = providers.tokens.count("## Active Constraints", "o200k_base")
    assert header + sum(i["tokens"] for i in shown) == providers.tokens.count(section, "o200k_base")


async def test_feedback_names_a_censor_of_the_context(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    await put_agent(client, tenancy)
    censor = await write(client, tenancy, CENSOR)
    await worker.drain()
    result = await _build(client, tenancy, "Can I drop table users in production?")
    assert censor["id"] in [i["memory_id"] for i in _layer(result, "censors")["items"]]
    response = await client.post(
        f"/context/{result['context_id']}/feedback",
        headers=tenancy.headers,
        json={"used_memory_ids": [censor["id"]]},
    )
    assert response.status_code == 200, response.text
    assert response.json()["referenced"] == [censor["id"]]
