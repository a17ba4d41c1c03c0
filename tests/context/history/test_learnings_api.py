"""POST /context/build with a session: the lessons of reviewed decisions and the procedures
relevant to the input come as Past Learnings, in the window's learnings share; what they leave
goes to the history."""

from typing import Any

import httpx

from app.core.worker import Worker
from app.providers.container import Providers
from tests.context.history.test_history_api import MESSAGES, WINDOW, chat_tokens, conversation
from tests.context.history.test_recall_api import build as session_build
from tests.context.history.test_recall_api import start
from tests.context.test_build_api import QUESTION, build
from tests.factories import Tenancy, decision, fact, write

ROOMY = {
    "total": 8000,
    "system_reserve": 1000,
    "tools_reserve": 500,
    "memory_fraction": 0.15,
    "learnings_fraction": 0.1,
}
NOTES = "Cache reads stayed under 2 ms and there was no Redis service to run."


def layer(result: dict[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(item for item in result["layers"] if item["name"] == name)
    return found


def context_tokens(providers: Providers, result: dict[str, Any]) -> int:
    """The context recounted; it is the memory layers', Past Learnings' and recall's tokens."""
    count = providers.tokens.count(result["context"], "o200k_base")
    learned = layer(result, "learnings")["used"] if result["history"] else 0
    recalled = result["history"]["recalled_tokens"] if result["history"] else 0
    assert count == result["totals"]["used"] + learned + recalled
    return count


def _assert_within_the_window(
    result: dict[str, Any], learned: dict[str, Any], providers: Providers
) -> None:
    """Past Learnings' budget is the window's learnings share; the promise holds, counted here."""
    window = result["history"]["window"]
    assert learned["budget"] == window["learnings_budget"] == int(0.1 * 6500)
    assert 0 < learned["used"] <= learned["budget"]
    assert window["memory_budget"] == result["totals"]["budget"] == int(0.15 * 6500)
    used = context_tokens(providers, result)
    assert window["history_budget"] == window["available"] - used
    assert result["history"]["tokens"] == chat_tokens(providers, result["messages"])
    assert used + result["history"]["tokens"] <= window["available"]


async def test_lessons_and_procedures_come_as_past_learnings_with_a_session(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    newton: dict[str, Any],
    worker: Worker,
    providers: Providers,
) -> None:
    lesson = await write(
        client,
        tenancy,
        decision(
            "Chose Postgres UNLOGGED tables over Redis for Newton's caching",
            reasons=["One service fewer to run and back up."],
        ),
    )
    outcome = {"action": "record_outcome", "outcome": "success", "notes": NOTES}
    patched = await client.patch(f"/memories/{lesson['id']}", headers=tenancy.headers, json=outcome)
    assert patched.status_code == 200, patched.text
    await worker.drain()
    said = conversation(12)
    await client.post(MESSAGES, json={"messages": said}, headers=tenancy.headers)
    body = {"input": QUESTION, "model": "gpt-4o"}
    result = await build(client, tenancy, **body, session_id="chat-1", window=ROOMY)
    learned = layer(result, "learnings")
    ids = [item["memory_id"] for item in learned["items"]]
    assert lesson["id"] in ids
    assert newton["procedure"] in ids
    assert {item["kind"] for item in learned["items"]} == {"decision", "procedure"}
    # Let in by the same gate as the layers, and saying why.
    assert {item["reason"] for item in learned["items"]} <= {
        "meaning",
        "words",
        "kind_best",
        "linked",
    }
    scores = [item["score"] for item in learned["items"]]
    assert scores == sorted(scores, reverse=True)  # most relevant first
    # The section after the memory layers, the lesson with its outcome's notes.
    memory, section = result["context"].split("\n\n## Past Learnings\n")
    assert "Chose Postgres UNLOGGED tables over Redis for Newton's caching [success, 0.80]" in (
        section
    )
    assert f"Outcome: {NOTES}" in section
    assert "- Architecture Decision: Core patterns:" in section
    assert "Architecture Decision" not in memory
    assert "Newton's caching" not in memory
    # No memory twice: what Past Learnings show is in no other layer.
    shown = [item["memory_id"] for la in result["layers"] for item in la["items"]]
    assert len(shown) == len(set(shown))
    _assert_within_the_window(result, learned, providers)
    stored = await client.get(f"/context/{result['context_id']}", headers=tenancy.headers)
    assert stored.json()["layers"] == result["layers"]
    # Without a session: no such section; the lesson is one of the relevant past decisions.
    plain = await build(client, tenancy, **body, budget=975)
    assert "Past Learnings" not in plain["context"]
    assert "learnings" not in [item["name"] for item in plain["layers"]]
    assert lesson["id"] in [item["memory_id"] for item in layer(plain, "decisions")["items"]]


async def test_what_learnings_leave_goes_to_the_history(
    client: httpx.AsyncClient, tenancy: Tenancy, providers: Providers
) -> None:
    await start(client, tenancy, conversation(60))
    await write(client, tenancy, fact("Redis adds a separate service to run and back up."))
    none, unused = [
        await session_build(
            client, tenancy, "Is Redis worth it?", WINDOW | {"learnings_fraction": share}
        )
        for share in (0.0, 0.3)
    ]
    learned, window = layer(unused, "learnings"), unused["history"]["window"]
    assert (learned["items"], learned["used"], learned["budget"]) == ([], 0, 360)
    assert "Past Learnings" not in unused["context"]
    # The whole share went on to the history: the same messages as with no share at all, more
    # than the history's own part of the window would hold.
    assert window["history_budget"] == window["available"] - context_tokens(providers, unused)
    assert unused["messages"] == none["messages"]
    own_part = window["available"] - window["memory_budget"] - window["learnings_budget"]
    assert unused["history"]["tokens"] > own_part
    assert unused["history"]["tokens"] + unused["totals"]["used"] <= window["available"]
