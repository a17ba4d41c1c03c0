"""An agent loop on Context Engine with the official `openai` client.

Each turn: the user's message is appended to the session; a build gives the context (the system
prompt) and the session's history pruned to the window; the model answers, calling the service's
tools when the service offers them (GET /agents/{agent}/tools); the reply goes back as feedback
and into the session; "remember that ..." in the user's message is written down as a fact.

    pip install ./clients/python openai
    export CE_API_KEY=$(cat .data/api-key) OPENAI_API_KEY=sk-...
    python examples/agent_loop.py --agent newton --session chat-1 "Which database did we choose?"

With no message on the command line, it reads one per line from standard input.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, cast

from context_engine_client import ContextEngine, NotFound
from context_engine_client.models import ChatMessageRead, ContextWindow
from openai import OpenAI
from openai.types.chat import (
    ChatCompletionMessage,
    ChatCompletionMessageFunctionToolCall,
    ChatCompletionMessageParam,
    ChatCompletionToolParam,
)

MAX_TOOL_ROUNDS = 3
REMEMBER = re.compile(r"\bremember(?: that|:)\s+(?P<fact>.+)", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class Agent:
    """Who talks, where, and with which model and window."""

    agent: str
    session: str
    model: str
    window: ContextWindow
    search_first: bool = False  # make the model call a tool (search its memory) before answering


def tools_of(engine: ContextEngine, agent: str) -> list[ChatCompletionToolParam]:
    """The agent's tools as OpenAI function definitions; none when the service has no tools."""
    try:
        response = engine.request("GET", f"/agents/{agent}/tools")
    except NotFound:  # a service without the tools endpoint
        return []
    return cast(list[ChatCompletionToolParam], response.json())


def run_tools(
    engine: ContextEngine, agent: str, calls: Sequence[ChatCompletionMessageFunctionToolCall]
) -> list[ChatCompletionMessageParam]:
    """Each tool call run by the service; its answers as the tool messages for the model."""
    answers: list[ChatCompletionMessageParam] = []
    for call in calls:
        body = {"arguments": call.function.arguments, "tool_call_id": call.id}
        result = engine.request("POST", f"/agents/{agent}/tools/{call.function.name}", json=body)
        content = str(result.json().get("content", ""))
        answers.append({"role": "tool", "tool_call_id": call.id, "content": content})
    return answers


def as_param(message: ChatMessageRead) -> ChatCompletionMessageParam:
    """A message of the build's history as the OpenAI client takes it."""
    return cast(ChatCompletionMessageParam, message.model_dump(mode="json", exclude_none=True))


def answer(
    llm: OpenAI,
    engine: ContextEngine,
    me: Agent,
    messages: list[ChatCompletionMessageParam],
) -> ChatCompletionMessage:
    """The model's answer, after the tool calls it makes (at most MAX_TOOL_ROUNDS rounds)."""
    tools = tools_of(engine, me.agent)  # asked each turn: tools may come with an upgrade
    for round_ in range(MAX_TOOL_ROUNDS + 1):
        if not tools:
            return llm.chat.completions.create(model=me.model, messages=messages).choices[0].message
        forced = me.search_first and round_ == 0
        choice: Literal["none", "auto", "required"] = (
            "required" if forced else ("none" if round_ == MAX_TOOL_ROUNDS else "auto")
        )
        completion = llm.chat.completions.create(
            model=me.model, messages=messages, tools=tools, tool_choice=choice
        )
        message = completion.choices[0].message
        if not message.tool_calls:
            return message
        messages.append(cast(ChatCompletionMessageParam, message.model_dump(exclude_none=True)))
        # The service's tools are functions (not custom tools).
        calls = [call for call in message.tool_calls if call.type == "function"]
        messages.extend(run_tools(engine, me.agent, calls))
    raise AssertionError("unreachable: the last round allows no tool call")


def turn(llm: OpenAI, engine: ContextEngine, me: Agent, user_input: str) -> str:
    """One exchange: build, answer, feed back, write down; returns the reply."""
    engine.append(me.agent, me.session, [{"role": "user", "content": user_input}])
    built = engine.build(me.agent, user_input, session=me.session, window=me.window, model=me.model)
    # The history ends with the user's message just appended: it is never evicted.
    messages: list[ChatCompletionMessageParam] = [{"role": "system", "content": built.context}]
    messages += [as_param(message) for message in built.messages or []]
    reply = answer(llm, engine, me, messages).content or ""
    if reply:
        engine.append(me.agent, me.session, [{"role": "assistant", "content": reply}])
        engine.feedback(built.context_id, reply=reply)
    said = REMEMBER.search(user_input)
    if said:
        engine.remember(me.agent, "fact", content=said["fact"].strip(), source="agent_loop")
    return reply


def ensure_agent(engine: ContextEngine, me: Agent) -> None:
    try:
        engine.get_agent(me.agent)
    except NotFound:
        engine.put_agent(me.agent, identity={"name": me.agent.capitalize()}, model=me.model)


def main(argv: Sequence[str] | None = None, inputs: Iterable[str] | None = None) -> int:
    """Run the turns of the command line, else one per line of `inputs` (standard input)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("message", nargs="*", help="user messages, one per turn")
    parser.add_argument("--agent", default="newton")
    parser.add_argument("--session", default="chat-1")
    parser.add_argument("--model", default=os.environ.get("OPENAI_MODEL", "gpt-4o-mini"))
    parser.add_argument("--window", type=int, default=16_000, help="tokens of a chat request")
    parser.add_argument("--search-first", action="store_true", help="a tool call before answering")
    args = parser.parse_args(argv)
    window = ContextWindow(total=args.window, system_reserve=1_000, tools_reserve=1_000)
    me = Agent(args.agent, args.session, args.model, window, args.search_first)
    with ContextEngine() as engine, OpenAI() as llm:
        ensure_agent(engine, me)
        for user_input in args.message or (line.strip() for line in inputs or sys.stdin):
            if user_input:
                print(
                    json.dumps({"user": user_input, "assistant": turn(llm, engine, me, user_input)})
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
