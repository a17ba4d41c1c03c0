"""An agent loop end to end: the real `openai` client sends the service's tool definitions to
a model (the fake OpenAI server), passes the tool call it gets straight to the service, and
hands the result back as the tool message the service made."""

import json
from typing import Any

import httpx
import openai

from tests.factories import Tenancy, put_agent
from tests.fake_openai import FakeOpenAI
from tests.fake_openai_answers import SUMMARY_PREFIX
from tests.tools.calls import TOOLS, remember

ROTATION = "The staging database password rotates every Tuesday at 09:00."


async def test_a_tool_call_goes_straight_through_and_its_result_back(
    client: httpx.AsyncClient, tenancy: Tenancy, fake: FakeOpenAI
) -> None:
    await put_agent(client, tenancy)
    memory_id = await remember(client, tenancy, ROTATION)
    tools = (await client.get(TOOLS, headers=tenancy.headers)).json()
    messages: list[Any] = [{"role": "user", "content": "staging password rotation"}]
    async with openai.AsyncOpenAI(base_url=fake.url + "/v1", api_key="k", max_retries=0) as api:
        asked = await api.chat.completions.create(
            model="fake-chat",
            messages=messages,
            tools=tools,
            tool_choice={"type": "function", "function": {"name": "search_memory"}},
        )
        (tool_call,) = asked.choices[0].message.tool_calls or []
        assert tool_call.type == "function"
        response = await client.post(
            f"{TOOLS}/{tool_call.function.name}",
            json={"arguments": tool_call.function.arguments, "tool_call_id": tool_call.id},
            headers=tenancy.headers,
        )
        assert response.status_code == 200, response.text
        found = response.json()
        messages += [asked.choices[0].message.model_dump(exclude_none=True), found["message"]]
        answered = await api.chat.completions.create(model="fake-chat", messages=messages)
    # The model received the definitions as the service gave them, and called search_memory
    # with its own arguments (the user's words as the query).
    first, second = fake.requests_to("/v1/chat/completions")
    assert first.body["tools"] == tools
    assert json.loads(tool_call.function.arguments) == {"query": "staging password rotation"}
    assert found["references"] == [{"kind": "memory", "id": memory_id}]
    assert ROTATION in found["content"]
    # The tool message answers the call, and the model answered from the result.
    assert second.body["messages"][-1] == {
        "role": "tool",
        "tool_call_id": tool_call.id,
        "content": found["content"],
    }
    assert second.body["messages"][-2]["tool_calls"][0]["id"] == tool_call.id
    assert answered.choices[0].message.content == (
        f"{SUMMARY_PREFIX} {' '.join(found['content'].split()[:12])}"
    )
