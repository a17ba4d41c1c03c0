"""Whatever an agent writes, its builds answer and keep the promise: memories of every kind, an
identity, a working memory and a conversation with line breaks, Markdown, very long words and
any Unicode the API takes, built with and without the session. Each build answers 200 within
its budget (counted with the target model's tokenizer), and its manifest adds up: every item
once, each layer's items within what the layer used, the layers within the context."""

import json
import uuid
from typing import Any

import httpx
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st

from app.core.worker import Worker
from app.providers.container import Providers
from app.providers.tokenizer import EncodingName
from tests.context.history.test_summaries_api import keeps_the_promise
from tests.factories import Tenancy

# Pieces that have broken renderers: line breaks of every sort, Markdown that opens a section,
# a list or a code block, a word longer than a line, text that runs right to left, controls.
PIECES = [
    "\n", "\r\n", "\n\n", "\u2028", "\t", "  ", "## Identity", "\n## Known Information\n",
    "- ", "* ", "1. ", "```", "> ", "|a|b|", "**", "[x](y)", "—", "…", "é", "🙂", "👩‍💻",
    "\u202e", "ﷺ", "\u0301", "\x01", "\x7f", "Ω", "x" * 400, "Redis", "Postgres", "drop table",
]  # fmt: skip
_ANY = st.characters(codec="utf-8", exclude_characters="\x00")
TEXT = (
    st.lists(st.one_of(st.sampled_from(PIECES), st.text(_ANY, min_size=1, max_size=12)), min_size=1)
    .map(lambda parts: "".join(parts)[:2000])
    .filter(bool)
)
LABEL = TEXT.map(lambda text: text[:200])
MEMORY_LAYERS = ("decisions", "facts", "procedures", "episodes", "learnings")
MODELS: dict[str, EncodingName] = {"gpt-4o": "o200k_base", "gpt-4": "cl100k_base"}


def _memory(kind: str, texts: list[str]) -> dict[str, Any]:
    a, b, c = texts
    bodies: dict[str, dict[str, Any]] = {
        "decision": {"decision": a, "reasons": [b], "alternatives": [c], "context": b},
        "fact": {"content": a},
        "procedure": {"name": a, "description": b, "steps": [c, a], "core_patterns": [b]},
        "episode": {"title": a[:2000], "detail": b, "participants": [c[:200]]},
        "censor": {"trigger_pattern": a, "reason": b, "action": "block" if len(c) % 2 else "warn"},
    }
    return {"kind": kind, **bodies[kind]}


MEMORY = st.builds(
    _memory,
    st.sampled_from(["decision", "fact", "procedure", "episode", "censor"]),
    st.lists(TEXT, min_size=3, max_size=3),
)


async def _agent(client: httpx.AsyncClient, tenancy: Tenancy, name: str, texts: list[str]) -> None:
    identity = {"name": texts[0][:200], "traits": [texts[1][:200]], "description": texts[2],
                "core_rules": [texts[3]]}  # fmt: skip
    response = await client.put(
        f"/agents/{name}", json={"identity": identity}, headers=tenancy.headers
    )
    assert response.status_code == 200, response.text
    working = {"current_task": texts[4], "open_threads": [texts[5]]}
    response = await client.put(
        f"/agents/{name}/working-memory", json=working, headers=tenancy.headers
    )
    assert response.status_code == 200, response.text


def _adds_up(result: dict[str, Any], tokens: int) -> None:
    """The manifest's accounts: each memory once; a memory layer uses tokens only for what it
    holds; the items' tokens within their layer's and, all together, within the context's
    (`tokens`, counted here). An item's count has the line break before it, which the text may
    join to the item's first token: a token each, at most."""
    assert result["totals"]["used"] <= result["totals"]["budget"]
    shown = [item["memory_id"] for layer in result["layers"] for item in layer["items"]]
    assert len(shown) == len(set(shown))
    assert not set(shown) & {left["memory_id"] for left in result["left_out"]}
    for layer in result["layers"]:
        items = layer["items"]
        assert sum(item["tokens"] for item in items) <= layer["used"] + len(items), layer
        if layer["name"] in MEMORY_LAYERS and not items:
            assert layer["used"] == 0, layer
    assert sum(item["tokens"] for layer in result["layers"] for item in layer["items"]) <= (
        tokens + len(shown)
    )


@settings(
    max_examples=40,
    deadline=None,
    # A failing example is printed as generated: shrinking one takes minutes of builds.
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    texts=st.lists(TEXT, min_size=8, max_size=8),
    memories=st.lists(MEMORY, min_size=1, max_size=6),
    said=st.lists(st.tuples(st.sampled_from(["user", "assistant"]), TEXT), max_size=6),
    budget=st.integers(min_value=1, max_value=3000),
    total=st.integers(min_value=300, max_value=6000),
    model=st.sampled_from(sorted(MODELS)),
)
async def test_builds_keep_the_promise_whatever_is_written(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    worker: Worker,
    providers: Providers,
    texts: list[str],
    memories: list[dict[str, Any]],
    said: list[tuple[str, str]],
    budget: int,
    total: int,
    model: str,
) -> None:
    note(json.dumps({"texts": texts, "memories": memories, "said": said}, ensure_ascii=True))
    agent = f"a-{uuid.uuid4().hex[:12]}"
    await _agent(client, tenancy, agent, texts)
    written = await client.post(
        f"/agents/{agent}/memories/batch", json={"memories": memories}, headers=tenancy.headers
    )
    assert written.status_code == 201, written.text
    if said:
        messages = [{"role": role, "content": content} for role, content in said]
        appended = await client.post(
            f"/agents/{agent}/sessions/s-1/messages",
            json={"messages": messages},
            headers=tenancy.headers,
        )
        assert appended.status_code == 201, appended.text
    await worker.drain()
    request = {"agent_id": agent, "model": model}
    for text in (texts[6], memories[0].get("content") or texts[7]):
        alone = await client.post(
            "/context/build",
            json=request | {"input": text, "budget": budget},
            headers=tenancy.headers,
        )
        assert alone.status_code == 200, alone.text
        result = alone.json()
        tokens = providers.tokens.count(result["context"], MODELS[model])
        assert result["totals"]["used"] == tokens <= budget
        _adds_up(result, tokens)
        if not said:
            continue
        window = {"total": total, "system_reserve": 50, "tools_reserve": 50, "sinks": 1}
        with_session = await client.post(
            "/context/build",
            json=request | {"input": text, "session_id": "s-1", "window": window},
            headers=tenancy.headers,
        )
        assert with_session.status_code == 200, with_session.text
        result = with_session.json()
        _adds_up(result, providers.tokens.count(result["context"], MODELS[model]))
        if model == "gpt-4o":  # the whole prompt within the window, counted as OpenAI does
            keeps_the_promise(providers, result)
