"""The inspector's memory page over HTTP: its representations, state, builds, lifecycle actions
and retention's changes."""

import httpx

from tests.factories import Tenancy, put_agent
from tests.inspect.conftest import Inspected, cookie
from tests.retention.writes import NOW, episode, run, write_all


async def test_memory_page_shows_three_representations_its_state_and_its_builds(
    client: httpx.AsyncClient, tenancy: Tenancy, inspected: Inspected
) -> None:
    loaded = {i["memory_id"] for layer in inspected.build["layers"] for i in layer["items"]}
    assert inspected.decision_id in loaded
    response = await client.get(
        f"/inspect/memories/{inspected.decision_id}", headers=cookie(tenancy)
    )
    assert response.status_code == 200
    page = response.text
    for level in ("micro", "summary", "full"):
        assert f"<h3>{level} · " in page
    assert "Chose Postgres over Redis for the cache" in page
    assert '<strong id="state">recorded</strong>' in page
    assert "<th>written</th><td>as a decision</td>" in page
    assert "<th>job embed</th><td>done after 1 attempt</td>" in page
    assert f'href="/inspect/builds/{inspected.build["context_id"]}"' in page


async def test_memory_page_lists_retentions_changes_with_their_reasons(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    ids = await write_all(client, tenancy, {"old": episode("Vacuum <incident>", 40)})
    result = await run(client, tenancy, now=NOW.isoformat())
    change = next(c for c in result["changes"] if c["memory_id"] == ids["old"])
    assert change["rule"] == "episode_summarized"
    page = (await client.get(f"/inspect/memories/{ids['old']}", headers=cookie(tenancy))).text
    assert "<th>retention: episode_summarized</th>" in page
    assert "<th>written</th><td>as an episode in state &#39;active&#39;</td>" in page
    assert "&#39;active&#39; → &#39;summarized&#39;: happened 40 days before" in page
    assert "Vacuum &lt;incident&gt;" in page


async def test_memory_page_lists_each_lifecycle_action_in_order(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    written = await client.post(
        "/agents/newton/memories",
        json={"kind": "fact", "content": "The <staging> cluster runs Postgres 16."},
        headers=tenancy.headers,
    )
    assert written.status_code == 201, written.text
    memory_id = written.json()["id"]
    for action in ("confirm", "invalidate"):
        response = await client.patch(
            f"/memories/{memory_id}", json={"action": action}, headers=tenancy.headers
        )
        assert response.status_code == 200, response.text
    page = (await client.get(f"/inspect/memories/{memory_id}", headers=cookie(tenancy))).text
    confirmed = page.index("<th>confirm</th><td>&#39;new&#39; → &#39;confirmed&#39;</td>")
    invalidated = page.index("<th>invalidate</th><td>&#39;confirmed&#39; → &#39;inactive&#39;</td>")
    assert page.index("<th>written</th>") < confirmed < invalidated < page.index("<th>now</th>")
