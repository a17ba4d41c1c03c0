"""The inspector's pages over HTTP: login, what a build and a memory page show, escaping, 404."""

import re
import uuid

import httpx

from app.core.worker import Worker
from app.providers.container import Providers
from tests.context.history.test_history_api import MESSAGES, WINDOW, conversation, post_build
from tests.context.premises.test_premises_api import CLUSTER, OTHER, agent_with, build
from tests.efforts.helpers import build as efforts_build
from tests.efforts.helpers import open_effort, say, shown
from tests.factories import Tenancy, put_agent
from tests.inspect.conftest import HOSTILE, QUESTION, Inspected, cookie


async def test_pages_send_a_visitor_without_a_key_to_the_login_form(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    for path in ("/inspect", f"/inspect/builds/{uuid.uuid4()}", "/inspect/agents/newton"):
        response = await client.get(path)
        assert response.status_code == 303, path
        assert response.headers["location"] == "/inspect/login"
    stale = await client.get("/inspect", headers={"Cookie": "ce_inspect=ce_revoked_or_made_up"})
    assert stale.status_code == 303
    assert stale.headers["set-cookie"].startswith('ce_inspect=""; expires=')
    form = await client.get("/inspect/login")
    assert form.status_code == 200
    assert form.headers["content-type"].startswith("text/html")
    assert '<input id="key" name="key" type="password"' in form.text


async def test_login_keeps_the_key_in_an_http_only_strict_cookie_and_logout_drops_it(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    empty = await client.post("/inspect/login", data={"key": "  "})
    assert empty.status_code == 401
    assert "Enter an API key." in empty.text
    forged = await client.post(
        "/inspect/login", data={"key": tenancy.key}, headers={"Origin": "https://elsewhere.example"}
    )
    assert forged.status_code == 403
    assert "set-cookie" not in forged.headers
    wrong = await client.post("/inspect/login", data={"key": "ce_00000000_wrong"})
    assert wrong.status_code == 401
    assert "unknown or revoked" in wrong.text
    assert "set-cookie" not in wrong.headers

    # Behind a proxy that rewrites Host, the page's origin is not this server's own.
    proxied = {"Origin": "https://inspect.example", "Sec-Fetch-Site": "same-origin"}
    response = await client.post("/inspect/login", data={"key": tenancy.key}, headers=proxied)
    assert response.status_code == 303
    assert response.headers["location"] == "/inspect"
    set_cookie = response.headers["set-cookie"]
    assert set_cookie.startswith(f"ce_inspect={tenancy.key};")
    assert "HttpOnly" in set_cookie
    assert "SameSite=strict" in set_cookie
    assert "Path=/inspect" in set_cookie

    home = await client.get("/inspect")  # the client keeps the cookie, as a browser does
    assert home.status_code == 200
    assert f"Agents of {tenancy.tenant}" in home.text

    forged = await client.post("/inspect/logout", headers={"Origin": "https://elsewhere.example"})
    assert forged.status_code == 403
    forged = await client.post("/inspect/logout", headers={"Sec-Fetch-Site": "cross-site"})
    assert forged.status_code == 403
    assert (await client.get("/inspect")).status_code == 200

    out = await client.post("/inspect/logout")
    assert out.status_code == 303
    assert out.headers["location"] == "/inspect/login"
    assert (await client.get("/inspect")).status_code == 303


async def test_agent_list_and_an_agents_builds(
    client: httpx.AsyncClient, tenancy: Tenancy, inspected: Inspected
) -> None:
    home = await client.get("/inspect", headers=cookie(tenancy))
    assert '<a href="/inspect/agents/newton">newton</a>' in home.text
    agent = await client.get("/inspect/agents/newton", headers=cookie(tenancy))
    assert agent.status_code == 200
    assert f'href="/inspect/builds/{inspected.build["context_id"]}"' in agent.text
    assert QUESTION in agent.text
    assert f'href="/inspect/memories/{inspected.decision_id}"' in agent.text


async def test_build_page_shows_the_context_beside_its_manifest(
    client: httpx.AsyncClient, tenancy: Tenancy, inspected: Inspected
) -> None:
    build = inspected.build
    response = await client.get(f"/inspect/builds/{build['context_id']}", headers=cookie(tenancy))
    assert response.status_code == 200
    page = response.text
    assert response.headers["content-security-policy"].startswith("default-src 'none'")
    assert "## Identity" in page  # the context text
    for layer in build["layers"]:
        assert f'data-layer="{layer["name"]}"' in page
        assert f"{layer['used']} / {layer['budget']}" in page
    assert re.search(r'class="fill" data-width="[0-9.]+" style="width: [0-9.]+%"', page)
    item = next(i for layer in build["layers"] for i in layer["items"])
    assert f'data-memory="{item["memory_id"]}"' in page
    assert "<dt>semantic</dt>" in page
    assert "<dt>recency</dt>" in page
    assert f"<td>{item['reason']}</td>" in page
    assert build["left_out"], "the budget of 160 tokens leaves memories out"
    out = build["left_out"][0]
    assert f'href="/inspect/memories/{out["memory_id"]}"' in page
    assert f'<td class="reason">{out["reason"]}</td>' in page
    assert f"Frame: {build['frame']['name']}" in page
    assert "<tr><td>total</td>" in page


async def test_build_page_shows_the_feedback_recorded_on_it(
    client: httpx.AsyncClient, tenancy: Tenancy, inspected: Inspected
) -> None:
    build_id = inspected.build["context_id"]
    recorded = await client.post(
        f"/context/{build_id}/feedback",
        headers=tenancy.headers,
        json={"used_memory_ids": [inspected.decision_id]},
    )
    assert recorded.status_code == 200, recorded.text
    precision = recorded.json()["precision"]
    page = (await client.get(f"/inspect/builds/{build_id}", headers=cookie(tenancy))).text
    assert f"<th>Feedback</th><td>precision {precision}: 1 of the loaded memories used" in page


async def test_user_text_is_escaped_on_every_page(
    client: httpx.AsyncClient, tenancy: Tenancy, inspected: Inspected
) -> None:
    pages = [
        f"/inspect/builds/{inspected.build['context_id']}",
        f"/inspect/memories/{inspected.hostile_id}",
    ]
    for path in pages:
        page = (await client.get(path, headers=cookie(tenancy))).text
        assert "<script" not in page, path
        assert "<b>bold</b>" not in page, path
    memory_page = (await client.get(pages[1], headers=cookie(tenancy))).text
    assert "&lt;script&gt;alert(&#34;owned&#34;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;" in (
        memory_page
    )
    assert HOSTILE not in memory_page


async def test_another_tenants_build_memory_and_agent_are_not_found(
    client: httpx.AsyncClient, tenancy: Tenancy, other_tenancy: Tenancy, inspected: Inspected
) -> None:
    await put_agent(client, other_tenancy, "someone")
    paths = [
        f"/inspect/builds/{inspected.build['context_id']}",
        f"/inspect/memories/{inspected.hostile_id}",
        "/inspect/agents/newton",
        f"/inspect/builds/{uuid.uuid4()}",
        "/inspect/memories/not-an-id",
    ]
    for path in paths:
        response = await client.get(path, headers=cookie(other_tenancy))
        assert response.status_code == 404, path
        assert response.headers["content-type"].startswith("text/html")
        assert "<h1>Not found</h1>" in response.text
    home = await client.get("/inspect", headers=cookie(other_tenancy))
    assert "/inspect/agents/someone" in home.text
    assert "/inspect/agents/newton" not in home.text


async def test_build_with_a_session_shows_its_history(
    client: httpx.AsyncClient, tenancy: Tenancy, inspected: Inspected
) -> None:
    messages = [
        {"role": "user", "content": "Which cache do we use?"},
        {"role": "assistant", "content": "Postgres <UNLOGGED> tables."},
    ]
    appended = await client.post(
        "/agents/newton/sessions/chat-1/messages",
        headers=tenancy.headers,
        json={"messages": messages},
    )
    assert appended.status_code in (200, 201), appended.text
    response = await client.post(
        "/context/build",
        headers=tenancy.headers,
        json={"agent_id": "newton", "input": QUESTION, "session_id": "chat-1"},
    )
    assert response.status_code == 200, response.text
    build = response.json()
    page = (
        await client.get(f"/inspect/builds/{build['context_id']}", headers=cookie(tenancy))
    ).text
    assert 'History of session <a href="/inspect/agents/newton/sessions/chat-1">' in page
    assert f"<th>Kept</th><td>{build['history']['kept']} (sinks" in page
    assert "Postgres &lt;UNLOGGED&gt; tables." in page


async def test_the_pages_stay_out_of_the_openapi_document(client: httpx.AsyncClient) -> None:
    document = (await client.get("/openapi.json")).json()
    assert not [path for path in document["paths"] if path.startswith("/inspect")]


async def test_build_with_efforts_shows_how_each_was_shown(
    client: httpx.AsyncClient, tenancy: Tenancy, providers: Providers
) -> None:
    await put_agent(client, tenancy)
    effort_id = await open_effort(client, tenancy, "Fix the <flaky> test")
    await say(client, tenancy, ("user", "The test fails one run in ten."), ("assistant", "On it."))
    result = await efforts_build(client, tenancy, providers)
    assert effort_id in shown(result)
    page = (
        await client.get(f"/inspect/builds/{result['context_id']}", headers=cookie(tenancy))
    ).text
    assert f"<h3>Efforts (turn {result['history']['efforts']['turn']}," in page
    row = f"<td>Fix the &lt;flaky&gt; test</td><td>open</td><td>{shown(result)[effort_id]}</td>"
    assert row in page


async def test_build_page_says_why_each_was_left_out_and_the_premises(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    ids = await agent_with(client, tenancy, worker, *CLUSTER, *OTHER)
    result = await build(client, tenancy)  # "Why did the Kafka cluster crash?"
    page = (
        await client.get(f"/inspect/builds/{result['context_id']}", headers=cookie(tenancy))
    ).text
    invoices = ids[OTHER[0]]
    [out] = [o for o in result["left_out"] if o["memory_id"] == invoices]
    assert out["reason"] == "score"
    gate = result["gate"]
    row = page.split(f'<tr class="out" data-memory="{invoices}">', 1)[1].split("</tr>", 1)[0]
    semantic = out["components"]["semantic"]
    assert (
        f'<td class="why">similarity {semantic:.3f}, under the floor '
        f"{gate['similarity_floor']:.3f} (the best: {gate['best_similarity']:.3f})"
    ) in row
    assert "<dt>semantic</dt>" in row
    assert 'id="gate"' in page
    [premise] = result["premises"]
    assert "Premises not borne out (1)" in page
    assert f"<td>{premise['text']}</td><td>unsupported</td>" in page
    # The memory's page lists the build among those that left it out, not those that held it.
    memory = (await client.get(f"/inspect/memories/{invoices}", headers=cookie(tenancy))).text
    held, left = memory.split('<h2 id="left-out-of">', 1)
    link = f'href="/inspect/builds/{result["context_id"]}"'
    assert link in left
    assert link not in held


async def test_session_page_says_what_the_latest_build_did_with_each_message(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    said = conversation(60)
    appended = await client.post(MESSAGES, json={"messages": said}, headers=tenancy.headers)
    assert appended.status_code == 201, appended.text
    response = await post_build(
        client, tenancy, input="Is Redis worth it?", session_id="chat-1", window=WINDOW
    )
    assert response.status_code == 200, response.text
    result = response.json()
    history = result["history"]
    agent_page = (await client.get("/inspect/agents/newton", headers=cookie(tenancy))).text
    assert 'href="/inspect/agents/newton/sessions/chat-1"' in agent_page
    build_page = (
        await client.get(f"/inspect/builds/{result['context_id']}", headers=cookie(tenancy))
    ).text
    assert 'href="/inspect/agents/newton/sessions/chat-1"' in build_page
    page = (
        await client.get("/inspect/agents/newton/sessions/chat-1", headers=cookie(tenancy))
    ).text
    assert f'href="/inspect/builds/{result["context_id"]}"' in page
    fates = dict(re.findall(r'<tr data-seq="(\d+)">.*?<td class="fate">([^<]*)</td>', page))
    assert len(fates) == 60
    assert {fates[str(seq)] for seq in range(history["sinks"])} == {"sink"}
    first_kept = history["first_kept_seq"]
    assert {fates[str(seq)] for seq in range(first_kept, 60)} == {"kept"}
    assert {fates[str(seq)] for seq in range(history["sinks"], first_kept)} <= {
        "evicted",
        "summarized",
        "recalled",
    }
    assert list(fates.values()).count("kept") + history["sinks"] == history["kept"]
    later = {"messages": [{"role": "user", "content": "And after the build?"}]}
    assert (await client.post(MESSAGES, json=later, headers=tenancy.headers)).status_code == 201
    page = (
        await client.get("/inspect/agents/newton/sessions/chat-1", headers=cookie(tenancy))
    ).text
    assert re.search(r'<tr data-seq="60">.*?<td class="fate">after the build</td>', page)
    missing = await client.get("/inspect/agents/newton/sessions/nope", headers=cookie(tenancy))
    assert missing.status_code == 404
