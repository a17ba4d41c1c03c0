"""One session of the bounded-working-context benchmark over HTTP: efforts opened, concluded,
expanded and searched, messages appended, and a build per user turn read for its working memory
(the efforts' part of the context and the history's messages)."""

import json
import re
from dataclasses import dataclass
from typing import Any

from pydantic import JsonValue

from app.providers.tokenizer import TokenCounter
from bench.common.client import ApiClient, ApiError

AGENT = "bounded"
# An effort as search_memory's result lists it: `- [effort e_4] title: …`.
_EFFORT_LINE = re.compile(r"^- \[effort (e_\d+)\]", re.MULTILINE)
# A window wide enough that no build is cut by its budget: what bounds working memory here is
# eviction, not the window (the promise is checked at every build all the same).
TOTAL, SYSTEM_RESERVE, TOOLS_RESERVE = 16_000, 1_000, 500
AVAILABLE = TOTAL - SYSTEM_RESERVE - TOOLS_RESERVE
WINDOW: dict[str, JsonValue] = {
    "total": TOTAL,
    "system_reserve": SYSTEM_RESERVE,
    "tools_reserve": TOOLS_RESERVE,
    "memory_fraction": 0.05,
    "learnings_fraction": 0.0,
    "fresh_tail": 4,
    "sinks": 0,
}


@dataclass(frozen=True)
class Step:
    """What one build held: the working memory's tokens (efforts' part + history), the
    summaries and raw efforts shown, ambient messages kept, and the context's and history's
    tokens against available."""

    turn: int
    working_tokens: int
    summaries: tuple[str, ...]
    raw: tuple[str, ...]
    evicted: int
    ambient_messages: int
    context_tokens: int
    history_tokens: int
    within_available: bool


class BoundedSession:
    """A session of the bench's agent, addressed by name."""

    def __init__(self, api: ApiClient, session_id: str) -> None:
        self.api = api
        self.session_id = session_id
        self.base = f"/agents/{AGENT}/sessions/{session_id}"

    async def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        response = await self.api.http.request(method, self.base + path, **kwargs)
        if response.status_code >= 400:
            raise ApiError(f"{method} {path}: {response.status_code} {response.text[:300]}")
        return response.json()

    async def say(self, *messages: tuple[str, str]) -> None:
        body = {"messages": [{"role": r, "content": c} for r, c in messages]}
        await self._call("POST", "/messages", json=body)

    async def open(self, title: str) -> str:
        return str((await self._call("POST", "/efforts", json={"title": title}))["effort_id"])

    async def conclude(self, effort_id: str) -> None:
        await self._call("POST", f"/efforts/{effort_id}/conclude")

    async def expand(self, effort_id: str) -> None:
        await self._call("POST", f"/efforts/{effort_id}/expand")

    async def efforts(self) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = (await self._call("GET", "/efforts"))["items"]
        return items

    async def search(self, query: str, limit: int = 5) -> list[str]:
        """The efforts the model's `search_memory` tool shows for `query`, in its order (a
        call that shows an effort is a reference to it, as the model's would be)."""
        arguments = {"query": query, "session_id": self.session_id, "limit": limit}
        response = await self.api.http.post(
            f"/agents/{AGENT}/tools/search_memory", json={"arguments": arguments}
        )
        if response.status_code >= 400:
            raise ApiError(f"search_memory: {response.status_code} {response.text[:300]}")
        return _EFFORT_LINE.findall(response.json()["content"])

    async def build(self, text: str, counter: TokenCounter) -> Step:
        """A build for `text`, read as a Step (`counter`: the service's tokenizer)."""
        request: dict[str, JsonValue] = {
            "agent_id": AGENT,
            "input": text,
            "model": "gpt-4o",
            "session_id": self.session_id,
            "window": WINDOW,
        }
        raw, _elapsed = await self.api.build_json(request)
        return read_step(json.loads(raw), counter)


def read_step(result: dict[str, Any], counter: TokenCounter) -> Step:
    """A build's working memory, from its response."""
    history = result["history"]
    efforts = history["efforts"]
    items = efforts["efforts"]
    in_efforts = sum(int(e["messages_kept"]) for e in items)
    context = int(counter.count(result["context"], "o200k_base"))
    return Step(
        turn=int(efforts["turn"]),
        working_tokens=int(efforts["tokens"]) + int(history["tokens"]),
        summaries=tuple(e["effort_id"] for e in items if e["shown"] == "summary"),
        raw=tuple(e["effort_id"] for e in items if e["shown"] == "raw"),
        evicted=sum(1 for e in items if e["shown"] == "evicted"),
        ambient_messages=int(history["kept"]) - in_efforts,
        context_tokens=context,
        history_tokens=int(history["tokens"]),
        within_available=context + int(history["tokens"]) <= AVAILABLE,
    )
