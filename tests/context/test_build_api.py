"""POST /context/build: the seed's Redis example, the manifest, and the hard budget."""

from typing import Any

import httpx

from app.core.worker import Worker
from app.providers.container import Providers
from app.providers.tokenizer import EncodingName
from tests.factories import Tenancy, fact, put_agent, write

QUESTION = "Should we use Redis for caching in Newton?"


async def build(client: httpx.AsyncClient, tenancy: Tenancy, **body: Any) -> dict[str, Any]:
    response = await client.post(
        "/context/build", headers=tenancy.headers, json={"agent_id": "newton", **body}
    )
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


def included(result: dict[str, Any]) -> set[str]:
    """The memories the search put in (the constraints' layer aside)."""
    return {
        item["memory_id"]
        for layer in result["layers"]
        for item in layer["items"]
        if item["kind"] != "censor"
    }


async def test_redis_question_gets_the_seed_context(
    client: httpx.AsyncClient, tenancy: Tenancy, newton: dict[str, Any], providers: Providers
) -> None:
    result = await build(client, tenancy, input=QUESTION, budget=4000)
    context = result["context"]
    headers = [line for line in context.split("\n") if line.startswith("## ")]
    assert headers == [
        "## Identity",
        "## Active Constraints",
        "## Current Approach: Decision",
        "## Current Focus",
        "## Relevant Past Decisions",
        "## Known Information",
        "## Procedure: Architecture Decision",
        "## Past Experience",
        "## Note",
    ]
    assert context.startswith("## Identity\nNewton agent. Analytical, cautious, curious.")
    assert (
        "- BLOCK: Don't add infrastructure without evaluating operational cost — learned "
        "from over-engineering incidents"
    ) in context
    assert "Recent accuracy: 100%." in context
    assert result["frame"]["name"] == "decision"
    assert result["frame"]["source"] == "selected"
    chosen = included(result)
    assert newton["Redis adds a separate service to manage, monitor, and back up."] in chosen
    assert newton["Chose Postgres UNLOGGED tables over Redis for the session cache"] in chosen
    celsius = newton["Tim prefers Celsius, not Fahrenheit."]
    assert celsius not in chosen
    assert {"memory_id": celsius, "kind": "fact", "reason": "score"}.items() <= next(
        item for item in result["left_out"] if item["memory_id"] == celsius
    ).items()
    _assert_accounts(result, providers)


# Every part of a memory's score the manifest shows.
SCORE_PARTS = {
    "semantic", "lexical", "frame", "recency", "outcome", "usage",
    "confidence", "adjacency", "period", "retention", "link",
}  # fmt: skip


def _assert_accounts(result: dict[str, Any], providers: Providers) -> None:
    """The manifest's accounts of the seed build: the gate's bar, the totals, the score parts,
    the reasons and the stages timed."""
    # What kept each one out by its score: below the gate's bar by meaning and by words.
    gate = result["gate"]
    assert 0 < gate["similarity_floor"] <= gate["best_similarity"]
    for out in result["left_out"]:
        if out["kind"] != "censor" and out["reason"] == "score":
            assert out["components"]["semantic"] < gate["similarity_floor"], out
            assert out["components"]["lexical"] <= gate["min_word_share"], out
    totals = result["totals"]
    assert totals["used"] == providers.tokens.count(result["context"], "o200k_base") <= 4000
    assert totals["encoding"] == "o200k_base"
    assert totals["budget_source"] == "request"
    assert set(result["layers"][4]["items"][0]["components"]) == SCORE_PARTS
    reasons = {i["kind"]: i["reason"] for layer in result["layers"] for i in layer["items"]}
    assert reasons["censor"] == "few"  # an agent with two censors sees both
    assert reasons["decision"] in {"meaning", "words", "kind_best", "standout", "linked"}
    stages = {"embed", "frame", "search", "rank", "assemble", "store", "total"}
    assert set(result["timings_ms"]) >= stages


async def test_stored_build_is_readable_by_its_tenant_only(
    client: httpx.AsyncClient, tenancy: Tenancy, other_tenancy: Tenancy, newton: dict[str, Any]
) -> None:
    result = await build(client, tenancy, input=QUESTION)
    stored = await client.get(f"/context/{result['context_id']}", headers=tenancy.headers)
    assert stored.status_code == 200
    assert stored.json()["context"] == result["context"]
    assert stored.json()["layers"] == result["layers"]
    hidden = await client.get(f"/context/{result['context_id']}", headers=other_tenancy.headers)
    assert hidden.status_code == 404
    other = await client.post(
        "/context/build",
        headers=other_tenancy.headers,
        json={"agent_id": "newton", "input": QUESTION},
    )
    assert other.status_code == 404


async def test_budget_counts_with_the_target_models_tokenizer(
    client: httpx.AsyncClient, tenancy: Tenancy, newton: dict[str, Any], providers: Providers
) -> None:
    cases: list[tuple[str, EncodingName]] = [
        ("gpt-4", "cl100k_base"),
        ("gpt-4o-mini", "o200k_base"),
    ]
    for model, encoding in cases:
        result = await build(client, tenancy, input=QUESTION, budget=300, model=model)
        assert result["totals"]["encoding"] == encoding
        assert providers.tokens.count(result["context"], encoding) == result["totals"]["used"]
        assert result["totals"]["used"] <= 300


async def test_tiny_budget_keeps_identity_and_constraints_last(
    client: httpx.AsyncClient, tenancy: Tenancy, newton: dict[str, Any]
) -> None:
    result = await build(client, tenancy, input=QUESTION, budget=60)
    assert result["totals"]["used"] <= 60
    assert result["context"].startswith("## Identity")
    assert "## Note" not in result["context"]
    nothing = await build(client, tenancy, input=QUESTION, budget=1)
    assert nothing["context"] == ""
    assert nothing["totals"]["used"] == 0


async def test_default_budget_comes_from_the_frame(
    client: httpx.AsyncClient, tenancy: Tenancy, newton: dict[str, Any]
) -> None:
    result = await build(client, tenancy, input=QUESTION)
    assert result["totals"]["budget"] == 12000
    assert result["totals"]["budget_source"] == "frame"
    forced = await build(client, tenancy, input=QUESTION, frame="conversation")
    assert (forced["frame"]["name"], forced["frame"]["confidence"]) == ("conversation", 1.0)
    assert forced["totals"]["budget"] == 3000


async def test_unknown_frame_is_404_with_the_known_ones(
    client: httpx.AsyncClient, tenancy: Tenancy, newton: dict[str, Any]
) -> None:
    response = await client.post(
        "/context/build",
        headers=tenancy.headers,
        json={"agent_id": "newton", "input": "x", "frame": "nope"},
    )
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/problem+json"
    assert "decision" in response.json()["allowed_frames"]


async def test_memory_without_embedding_is_found_by_its_words(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    memory = await write(client, tenancy, fact("The staging cluster runs on Hetzner machines."))
    result = await build(client, tenancy, input="Where does the staging cluster run?", budget=500)
    assert memory["id"] in included(result)
    item = next(
        i for layer in result["layers"] for i in layer["items"] if i["memory_id"] == memory["id"]
    )
    assert item["components"]["lexical"] == 1.0
    assert item["components"]["semantic"] == 0.0


async def test_filters_by_kind_and_metadata(
    client: httpx.AsyncClient, tenancy: Tenancy, newton: dict[str, Any]
) -> None:
    only_facts = await build(client, tenancy, input=QUESTION, kinds=["fact"])
    # The kinds searched; the agent's constraints stay in force whatever is searched.
    kinds = {i["kind"] for layer in only_facts["layers"] for i in layer["items"]}
    assert kinds == {"fact", "censor"}
    tagged = await write(
        client, tenancy, fact("Redis cluster costs 40 EUR a month.", metadata={"topic": "cost"})
    )
    by_meta = await build(client, tenancy, input=QUESTION, metadata={"topic": "cost"})
    assert included(by_meta) == {tagged["id"]}


async def test_paraphrases_are_not_loaded_twice(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Any
) -> None:
    await put_agent(client, tenancy)
    first = await write(client, tenancy, fact("Redis is our cache for session data."))
    second = await write(client, tenancy, fact("Redis is our cache for the session data."))
    assert second["written"] == "created"  # a word more: not the same fact, nearly the same
    await worker.drain()
    result = await build(client, tenancy, input="What do we use Redis for?", budget=1000)
    assert len(included(result) & {first["id"], second["id"]}) == 1
    assert "duplicate" in {item["reason"] for item in result["left_out"]}


async def test_bad_build_requests_are_422(client: httpx.AsyncClient, tenancy: Tenancy) -> None:
    for body in (
        {"agent_id": "newton"},
        {"agent_id": "newton", "input": ""},
        {"agent_id": "newton", "input": "x", "budget": 0},
        {"agent_id": "newton", "input": "x", "kinds": ["censor"]},
        {"agent_id": "newton", "input": "x", "now": "yesterday"},
        {"agent_id": "bad id", "input": "x"},
    ):
        response = await client.post("/context/build", headers=tenancy.headers, json=body)
        assert response.status_code == 422, body


async def test_a_new_word_finds_its_memory_in_the_very_next_build(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    notes = [fact(f"Deploy {i} went through the canary stage.") for i in range(60)]
    response = await client.post(
        "/agents/newton/memories/batch", headers=tenancy.headers, json={"memories": notes}
    )
    assert response.status_code == 201
    question = "Which deploy touched the zeppelin hangar?"
    before = await build(client, tenancy, input=question, budget=1000)  # counts "deploy" once
    memory = await write(client, tenancy, fact("The zeppelin hangar doors were rebuilt."))
    assert memory["id"] not in included(before)
    after = await build(client, tenancy, input=question, budget=1000)
    assert memory["id"] in included(after)
    first = next(i for layer in after["layers"] for i in layer["items"])
    assert first["memory_id"] == memory["id"]  # the rare words outweigh the common one


async def test_a_long_record_shows_the_passage_the_input_asks_about(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    await put_agent(client, tenancy)
    filler = [
        f"Step {i}: the team reviewed dashboards, logs and tickets for release {i}."
        for i in range(20)
    ]
    filler.insert(14, "The Redis password is stored in Vault under secret/newton/redis.")
    episode = await write(
        client,
        tenancy,
        {"kind": "episode", "title": "Release week", "detail": " ".join(filler)},
    )
    assert "Vault" not in episode["representations"]["summary"]["text"]
    await worker.drain()
    result = await build(client, tenancy, input="Where is the Redis password stored?", budget=1000)
    item = next(i for layer in result["layers"] for i in layer["items"] if i["kind"] == "episode")
    assert (item["memory_id"], item["detail"]) == (episode["id"], "excerpt")
    assert "stored in Vault under secret/newton/redis" in result["context"]


async def test_a_constraint_the_strongest_hits_speak_of_shows_how_much_of_it_they_do(
    client: httpx.AsyncClient, tenancy: Tenancy, newton: dict[str, Any]
) -> None:
    """The question names no infrastructure, but the Architecture Decision procedure it brings
    up speaks of evaluating an addition's operational cost, as the BLOCK censor does."""
    pager = await write(
        client,
        tenancy,
        {"kind": "censor", "trigger_pattern": "Don't page anyone for warnings", "reason": "noise"},
    )
    result = await build(client, tenancy, input=QUESTION, budget=4000)
    links = {
        item["memory_id"]: item["components"]["link"]
        for layer in result["layers"]
        for item in layer["items"]
        if item["kind"] == "censor"
    }
    block = newton["Don't add infrastructure without evaluating operational cost"]
    assert links[block] >= 0.5
    assert links[pager["id"]] == 0.0


async def test_each_build_sees_the_censors_as_they_are_now(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    """The process keeps the censors it has read; a censor written, embedded, counted or
    retired since is read again by the next build."""
    await put_agent(client, tenancy)
    request = {"input": "Can I run rm -rf on the cache folder?", "budget": 2000}

    def censor_items(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
        return {
            item["memory_id"]: item
            for layer in result["layers"]
            for item in layer["items"]
            if item["kind"] == "censor"
        }

    wipe = await write(
        client,
        tenancy,
        {"kind": "censor", "trigger_pattern": "rm -rf", "reason": "it deletes data for good"},
    )
    first = censor_items(await build(client, tenancy, **request))
    assert first[wipe["id"]]["components"]["semantic"] == 0.0  # not embedded yet
    await worker.drain()
    embedded = censor_items(await build(client, tenancy, **request))
    assert embedded[wipe["id"]]["components"]["semantic"] > 0.2
    force = await write(
        client,
        tenancy,
        {"kind": "censor", "trigger_pattern": "git push --force", "reason": "it rewrites history"},
    )
    assert set(censor_items(await build(client, tenancy, **request))) == {wipe["id"], force["id"]}
    retired = await client.patch(
        f"/memories/{wipe['id']}", json={"action": "retire"}, headers=tenancy.headers
    )
    assert retired.status_code == 200, retired.text
    result = await build(client, tenancy, **request)
    assert set(censor_items(result)) == {force["id"]}
    assert "it deletes data for good" not in result["context"]
