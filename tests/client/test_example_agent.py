"""examples/agent_loop.py end to end: the real service process, the real `openai` client and
the fake OpenAI server of tests/ as the model."""

import json
import subprocess
import sys
import uuid
from typing import Any

import pytest
from context_engine_client import ContextEngine, NotFound

from tests.client.served import Served
from tests.fake_openai import FakeOpenAI
from tests.fake_openai_answers import SUMMARY_PREFIX
from tests.process.launcher import REPO, service_env

DEPLOY_WINDOW = "the deploy window is Tuesday 09:00 UTC."


def run_example(served: Served, fake: FakeOpenAI, *args: str) -> list[dict[str, str]]:
    """Run the example as a user does, with the service's and the model's URLs and keys."""
    env = service_env(
        served.data_dir.parent / "example",
        CE_URL=served.url,
        CE_API_KEY=served.key,
        OPENAI_BASE_URL=fake.url + "/v1",
        OPENAI_API_KEY="sk-fake",
    )
    done = subprocess.run(
        [sys.executable, "examples/agent_loop.py", "--model", "fake-chat", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_two_turns_remember_a_fact_and_find_it_again(served: Served, fake: FakeOpenAI) -> None:
    agent = f"loop-{uuid.uuid4().hex[:8]}"
    turns = run_example(
        served,
        fake,
        "--agent",
        agent,
        "--session",
        "chat-1",
        f"Remember that {DEPLOY_WINDOW}",
        "When is the deploy window?",
    )
    assert [turn["assistant"] for turn in turns] == [
        f"{SUMMARY_PREFIX} Remember that the deploy window is Tuesday 09:00 UTC.",
        f"{SUMMARY_PREFIX} When is the deploy window?",
    ]
    first, second = (r.body for r in fake.requests_to("/v1/chat/completions"))
    # The second call's system prompt is the built context, with the fact the first turn wrote.
    system, *history = second["messages"]
    assert system["role"] == "system"
    assert "Tuesday 09:00 UTC" in system["content"]
    assert "Tuesday 09:00 UTC" not in first["messages"][0]["content"]
    # ... and the pruned history: the first exchange, then the new question.
    assert [(m["role"], m["content"]) for m in history] == [
        ("user", f"Remember that {DEPLOY_WINDOW}"),
        ("assistant", turns[0]["assistant"]),
        ("user", "When is the deploy window?"),
    ]
    with ContextEngine(served.url, served.key) as engine:
        stored = engine.messages(agent, "chat-1").items
        assert [m.role for m in stored] == ["user", "assistant", "user", "assistant"]
        (fact,) = engine.memories(agent, kind="fact").items
        assert fact.fields["content"] == DEPLOY_WINDOW
        assert fact.reference_count >= 1  # the second reply's feedback names it


def test_tool_calls_go_to_the_service(served: Served, fake: FakeOpenAI) -> None:
    """With --search-first the model must call a tool: the call is run by the service and its
    result handed back (needs the service's tools, GET /agents/{agent_id}/tools)."""
    agent = f"tools-{uuid.uuid4().hex[:8]}"
    with ContextEngine(served.url, served.key) as engine:
        engine.put_agent(agent, identity={"name": "Tools"})
        engine.remember(agent, "fact", content="Backups run nightly at 02:00 to bucket ce-bk.")
        try:
            tools = engine.request("GET", f"/agents/{agent}/tools").json()
        except NotFound:
            pytest.skip("this service has no tools endpoint (GET /agents/{agent_id}/tools)")
    turns = run_example(served, fake, "--agent", agent, "--search-first", "backups nightly")
    asked, answered = (r.body for r in fake.requests_to("/v1/chat/completions"))
    assert asked["tools"] == tools
    tool_message: dict[str, Any] = answered["messages"][-1]
    assert tool_message["role"] == "tool"
    assert "ce-bk" in tool_message["content"]
    assert turns[0]["assistant"].startswith(SUMMARY_PREFIX)
