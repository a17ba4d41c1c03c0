"""A build's answer is written from plain data, not through its models (they cost a build more
than its ranking): it must still be exactly what `ContextBuildResponse` writes, field for field,
with and without a session, in a full and a compact manifest, and as `GET /context/{id}` reads
it back."""

import json
from typing import Any

import httpx
import pytest

from app.context.schemas import ContextBuildResponse
from tests.context.test_build_api import QUESTION
from tests.factories import Tenancy

# A session whose history shows a named message, a tool call's answer and plain turns.
MESSAGES = [
    {"role": "user", "content": "We need a cache for Newton's API.", "name": "tim"},
    {"role": "assistant", "content": "Let me look at what Newton runs today."},
    {"role": "tool", "content": "newton, postgres, dashboard", "tool_call_id": "call-1"},
    *(
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"Turn {i} about the cache."}
        for i in range(30)
    ),
]


def differences(sent: Any, model: Any, path: str = "") -> list[str]:
    """Where the answer as sent and as its model writes it differ, as JSON paths."""
    if isinstance(sent, dict) and isinstance(model, dict):
        keys = list(dict.fromkeys([*sent, *model]))
        return [
            d
            for k in keys
            for d in differences(sent.get(k, "<absent>"), model.get(k, "<absent>"), f"{path}.{k}")
        ]
    if isinstance(sent, list) and isinstance(model, list) and len(sent) == len(model):
        return [
            d
            for i, (a, b) in enumerate(zip(sent, model, strict=True))
            for d in differences(a, b, f"{path}[{i}]")
        ]
    return [] if sent == model and type(sent) is type(model) else [f"{path}: {sent!r} != {model!r}"]


def assert_as_its_model_writes(text: str) -> dict[str, Any]:
    """The answer as sent, after checking that its model, reading it, writes it the same."""
    sent: dict[str, Any] = json.loads(text)
    model = ContextBuildResponse.model_validate_json(text).model_dump(mode="json")
    assert not differences(sent, model), "\n".join(differences(sent, model)[:20])
    return sent


@pytest.mark.parametrize("manifest", ["full", "compact"])
async def test_a_build_is_written_as_its_model_writes_it(
    client: httpx.AsyncClient, tenancy: Tenancy, newton: dict[str, Any], manifest: str
) -> None:
    body = {"agent_id": "newton", "input": QUESTION, "budget": 4000, "manifest": manifest}
    answer = await client.post("/context/build", headers=tenancy.headers, json=body)
    assert answer.status_code == 200, answer.text
    sent = assert_as_its_model_writes(answer.text)
    assert sent["created_at"].endswith("Z")
    assert any(item["kind"] == "censor" for layer in sent["layers"] for item in layer["items"])
    read = await client.get(f"/context/{sent['context_id']}", headers=tenancy.headers)
    assert read.status_code == 200
    assert_as_its_model_writes(read.text)


async def test_a_build_with_a_session_is_written_as_its_model_writes_it(
    client: httpx.AsyncClient, tenancy: Tenancy, newton: dict[str, Any]
) -> None:
    written = await client.post(
        "/agents/newton/sessions/chat-1/messages",
        headers=tenancy.headers,
        json={"messages": MESSAGES},
    )
    assert written.status_code in (200, 201), written.text
    body = {
        "agent_id": "newton",
        "input": QUESTION,
        "session_id": "chat-1",
        "window": {"total": 3_000, "system_reserve": 200, "tools_reserve": 0},
    }
    answer = await client.post("/context/build", headers=tenancy.headers, json=body)
    assert answer.status_code == 200, answer.text
    sent = assert_as_its_model_writes(answer.text)
    messages = sent["messages"]
    assert {"role": "tool", "content": "newton, postgres, dashboard", "tool_call_id": "call-1"} in (
        messages
    )
    assert all("tool_call_id" not in m for m in messages if m["role"] != "tool")
    assert sent["history"]["window"]["available"] == 2_800
