"""`AsyncContextEngine`: the asynchronous client, call for call the same as `ContextEngine`."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Self, TypeVar, Unpack

import httpx
from pydantic import BaseModel

from context_engine_client import calls, models
from context_engine_client.agent_setup import AsyncAgentSetup
from context_engine_client.calls import BuildOptions, Kind, MemoryFilters, Message, NewMemory
from context_engine_client.core import Call, Retries, base_url_of, headers_of
from context_engine_client.efforts import AsyncEfforts
from context_engine_client.errors import transport_error
from context_engine_client.llm_tools import AsyncTools
from context_engine_client.paging import AsyncPaging
from context_engine_client.probes import AsyncProbes
from context_engine_client.retention import AsyncRetention

T = TypeVar("T")
Params = Mapping[str, str | int | list[str]]


class AsyncContextEngine(
    AsyncEfforts, AsyncTools, AsyncAgentSetup, AsyncRetention, AsyncProbes, AsyncPaging
):
    """A client of the service: `base_url` and `api_key` default to CE_URL and CE_API_KEY.

    `transport` and `timeout` go to the underlying `httpx.AsyncClient`; `retries` says how
    idempotent calls are retried (see `Retries`).
    """

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = 30.0,
        retries: Retries | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.retries = retries or Retries()
        self._http = httpx.AsyncClient(
            base_url=base_url_of(base_url),
            headers=headers_of(api_key),
            timeout=timeout,
            transport=transport,
        )
        self._timeout: float | None = None  # this view's, else the http client's

    def with_timeout(self, seconds: float) -> Self:
        """The same client (connections, key, retries) whose calls wait at most `seconds` each:
        `ce.with_timeout(2).build(...)`. Closing either closes both."""
        view = copy.copy(self)
        view._timeout = seconds
        return view

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def send(self, call: Call[T]) -> T:
        """Send one call, retried as `retries` allows, and read its answer."""
        request = call.request(self._http, self._timeout)
        attempt = 0
        while True:
            outcome: httpx.Response | Exception
            try:
                outcome = await self._http.send(request)
            except httpx.TransportError as exc:
                outcome = exc
            delay = self.retries.delay(request, outcome, attempt)
            if delay is None:
                if isinstance(outcome, Exception):
                    raise transport_error(request, outcome) from outcome
                return call.result(outcome)
            if isinstance(outcome, httpx.Response):
                await outcome.aclose()
            attempt += 1
            await asyncio.sleep(delay)

    async def request(
        self,
        method: str,
        path: str,
        *,
        json: object = None,
        params: Params | None = None,
        idempotency_key: str | None = None,
    ) -> httpx.Response:
        """Any route; an error status raises its `ContextEngineError`."""
        return await self.send(calls.raw(method, path, json, params, idempotency_key))

    # The common loop: build, answer, feed back, write down.

    async def build(
        self, agent: str, input: str, **options: Unpack[BuildOptions]
    ) -> models.ContextBuildResponse:
        """The context for `input`: memories, and with `session` the pruned history."""
        return await self.send(calls.build(agent, input, options))

    async def feedback(
        self, context_id: str, *, reply: str | None = None, used: Sequence[str] | None = None
    ) -> models.ContextFeedbackResponse:
        """Which of the build's memories the LLM used: its `reply`, or their ids."""
        return await self.send(calls.feedback(context_id, reply, used))

    async def remember(
        self,
        agent: str,
        memory: Kind | NewMemory,
        *,
        idempotency_key: str | None = None,
        **fields: object,
    ) -> models.WrittenMemory:
        """Write a memory: a model of its kind (`models.DecisionCreate(kind="decision", ...)`,
        typed field by field), or its kind and fields (`"fact", content=...`)."""
        return await self.send(calls.remember(agent, memory, fields, idempotency_key))

    async def append(
        self,
        agent: str,
        session: str,
        messages: Sequence[Message],
        *,
        idempotency_key: str | None = None,
    ) -> models.MessageBatchRead:
        """Append messages to a session (the first creates it), stored once however retried."""
        return await self.send(calls.append(agent, session, messages, idempotency_key))

    async def refresh(
        self,
        context_id: str,
        input: str,
        *,
        decision_point: bool | None = None,
        budget: int | None = None,
    ) -> models.ContextRefreshResponse:
        return await self.send(
            calls.refresh(context_id, input, decision_point=decision_point, budget=budget)
        )

    async def expand(self, memory_id: str, *, context_id: str | None = None) -> models.MemoryRead:
        return await self.send(calls.expand(memory_id, context_id))

    async def get_context(self, context_id: str) -> models.ContextBuildResponse:
        return await self.send(calls.get_context(context_id))

    # Agents, memories and sessions.

    async def put_agent(self, agent: str, **fields: object) -> models.AgentRead:
        """Create or replace an agent (`identity={"name": ...}`, `model=`, `default_window=`)."""
        return await self.send(calls.put_agent(agent, fields))

    async def get_agent(self, agent: str) -> models.AgentRead:
        return await self.send(calls.get_agent(agent))

    async def agents(
        self, *, cursor: str | None = None, limit: int | None = None
    ) -> models.AgentPage:
        """One page of the tenant's agents, newest first (`next_cursor` gives the next)."""
        return await self.send(calls.agents(cursor, limit))

    async def delete_agent(self, agent: str) -> None:
        """Erase the agent and everything it owns: memories, sessions, builds, jobs."""
        await self.send(calls.delete_agent(agent))

    async def memories(
        self, agent: str, *, cursor: str | None = None, **filters: Unpack[MemoryFilters]
    ) -> models.MemoryPage:
        """One page of the agent's memories (`kind=`, `state=`, `q=`, `metadata=`, `limit=`;
        `cursor=` the page's `next_cursor` before); `iter_memories` goes through them all."""
        return await self.send(calls.memories(agent, filters, cursor))

    async def remember_batch(
        self,
        agent: str,
        memories: Sequence[Mapping[str, object] | BaseModel],
        *,
        idempotency_key: str | None = None,
    ) -> models.MemoryBatchRead:
        """Write memories of any kinds at once (each with its `kind`): all, or none."""
        return await self.send(calls.remember_batch(agent, memories, idempotency_key))

    async def search(
        self,
        agent: str,
        query: str,
        *,
        kinds: str | Sequence[str] = (),
        limit: int | None = None,
    ) -> models.MemorySearchResponse:
        """The agent's memories `query` finds by meaning and words, best first, with their
        scores and why each would be in a build (nothing is stored; at most `limit`, ≤ 50)."""
        return await self.send(calls.search(agent, query, kinds, limit))

    async def memory_history(self, memory_id: str) -> models.MemoryHistory:
        """The memory's history, oldest first: written, embedded, lifecycle actions, retention's
        changes."""
        return await self.send(calls.memory_history(memory_id))

    async def builds(
        self, agent: str, *, cursor: str | None = None, limit: int | None = None
    ) -> models.ContextBuildList:
        """One page of the agent's builds, newest first (`next_cursor` gives the next)."""
        return await self.send(calls.builds(agent, cursor, limit))

    async def get_memory(self, memory_id: str) -> models.MemoryRead:
        return await self.send(calls.get_memory(memory_id))

    async def update_memory(
        self, memory_id: str, action: Mapping[str, object] | BaseModel
    ) -> models.MemoryRead:
        """One lifecycle action, e.g. `{"action": "record_outcome", "outcome": "success"}`."""
        return await self.send(calls.update_memory(memory_id, action))

    async def delete_memory(self, memory_id: str, *, erase: bool = False) -> None:
        """Erase a memory for good (a tombstone keeps its id, kind and time); a decision only
        with `erase=True`, else `Conflict`. Reading it afterwards raises `Gone`."""
        await self.send(calls.delete_memory(memory_id, erase))

    async def messages(
        self, agent: str, session: str, *, cursor: int | None = None, limit: int | None = None
    ) -> models.MessagePage:
        return await self.send(calls.messages(agent, session, cursor, limit))

    async def get_session(self, agent: str, session: str) -> models.SessionRead:
        return await self.send(calls.get_session(agent, session))

    async def sessions(
        self, agent: str, *, cursor: str | None = None, limit: int | None = None
    ) -> models.SessionPage:
        """One page of the agent's sessions, newest first, with their counts."""
        return await self.send(calls.sessions(agent, cursor, limit))

    async def delete_session(self, agent: str, session: str) -> None:
        """Erase a session: its messages, summaries, efforts and the builds made with it."""
        await self.send(calls.delete_session(agent, session))
