"""The helpers' requests, built once for the sync and the async client."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Literal, TypedDict
from urllib.parse import quote

import httpx
from pydantic import BaseModel

from context_engine_client.core import IDEMPOTENCY_HEADER, Call, decode, no_body
from context_engine_client.models import (
    AgentPage,
    AgentRead,
    CensorCreate,
    ContextBuildList,
    ContextBuildResponse,
    ContextFeedbackResponse,
    ContextRefreshResponse,
    ContextWindow,
    DecisionCreate,
    EpisodeCreate,
    FactCreate,
    JsonValue,
    MemoryBatchRead,
    MemoryHistory,
    MemoryPage,
    MemoryRead,
    MemorySearchResponse,
    MessageBatchRead,
    MessagePage,
    ProcedureCreate,
    SessionPage,
    SessionRead,
    WrittenMemory,
)

Kind = Literal["decision", "fact", "procedure", "episode", "censor"]
Message = Mapping[str, object] | BaseModel


class BuildOptions(TypedDict, total=False):
    """`POST /context/build`'s optional fields (`session` is its `session_id`)."""

    session: str
    window: ContextWindow | Mapping[str, int | float]
    budget: int
    model: str
    frame: str
    now: datetime
    kinds: Sequence[str]
    metadata: Mapping[str, JsonValue]
    manifest: Literal["full", "compact"]


def segment(value: str) -> str:
    return quote(str(value), safe="")


def json_ready(value: object) -> object:
    """A JSON-ready copy of `value`: models dumped (the fields set), datetimes as RFC 3339."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_unset=True)
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_ready(v) for v in value]
    return value


def keyed(idempotency_key: str | None) -> dict[str, str]:
    return {IDEMPOTENCY_HEADER: idempotency_key} if idempotency_key else {}


def build(agent: str, input: str, options: BuildOptions) -> Call[ContextBuildResponse]:
    fields = dict(options)
    if "session" in fields:
        fields["session_id"] = fields.pop("session")
    body = json_ready({"agent_id": agent, "input": input, **fields})
    return Call("POST", "/context/build", decode(ContextBuildResponse.model_validate_json), body)


def refresh(
    context_id: str, input: str, *, decision_point: bool | None, budget: int | None
) -> Call[ContextRefreshResponse]:
    body: dict[str, object] = {"context_id": context_id, "input": input}
    extra = {"decision_point": decision_point, "budget": budget}
    body |= {name: value for name, value in extra.items() if value is not None}
    return Call(
        "POST", "/context/refresh", decode(ContextRefreshResponse.model_validate_json), body
    )


def get_context(context_id: str) -> Call[ContextBuildResponse]:
    path = f"/context/{segment(context_id)}"
    return Call("GET", path, decode(ContextBuildResponse.model_validate_json))


def expand(memory_id: str, context_id: str | None) -> Call[MemoryRead]:
    body = {"memory_id": memory_id} | ({"context_id": context_id} if context_id else {})
    return Call("POST", "/context/expand", decode(MemoryRead.model_validate_json), body)


def feedback(
    context_id: str, reply: str | None, used_memory_ids: Sequence[str] | None
) -> Call[ContextFeedbackResponse]:
    if (reply is None) == (used_memory_ids is None):
        raise TypeError("feedback takes either the LLM's reply or the used memory ids")
    body = (
        {"reply": reply} if reply is not None else {"used_memory_ids": list(used_memory_ids or [])}
    )
    path = f"/context/{segment(context_id)}/feedback"
    return Call("POST", path, decode(ContextFeedbackResponse.model_validate_json), body)


NewMemory = DecisionCreate | FactCreate | ProcedureCreate | EpisodeCreate | CensorCreate


def remember(
    agent: str, memory: Kind | NewMemory, fields: Mapping[str, object], idempotency_key: str | None
) -> Call[WrittenMemory]:
    """A memory of any kind: a model of its kind (typed), or the kind and its fields (checked by
    the service: a 422 names the one at fault)."""
    if isinstance(memory, BaseModel) and fields:
        raise TypeError("remember takes a memory model, or a kind and its fields, not both")
    path = f"/agents/{segment(agent)}/memories"
    body = json_ready(memory if isinstance(memory, BaseModel) else {"kind": memory, **fields})
    headers = keyed(idempotency_key)
    return Call("POST", path, decode(WrittenMemory.model_validate_json), body, headers=headers)


def append(
    agent: str, session: str, messages: Sequence[Message], idempotency_key: str | None
) -> Call[MessageBatchRead]:
    path = f"/agents/{segment(agent)}/sessions/{segment(session)}/messages"
    body = {"messages": json_ready(list(messages))}
    read = decode(MessageBatchRead.model_validate_json)
    return Call("POST", path, read, body, headers=keyed(idempotency_key))


def page_params(cursor: str | int | None, limit: int | None) -> dict[str, str | int]:
    pairs = (("cursor", cursor), ("limit", limit))
    return {name: value for name, value in pairs if value is not None}


def messages(agent: str, session: str, cursor: int | None, limit: int | None) -> Call[MessagePage]:
    path = f"/agents/{segment(agent)}/sessions/{segment(session)}/messages"
    params = page_params(cursor, limit)
    return Call("GET", path, decode(MessagePage.model_validate_json), params=params)


def sessions(agent: str, cursor: str | None, limit: int | None) -> Call[SessionPage]:
    path = f"/agents/{segment(agent)}/sessions"
    params = page_params(cursor, limit)
    return Call("GET", path, decode(SessionPage.model_validate_json), params=params)


def delete_session(agent: str, session: str) -> Call[None]:
    return Call("DELETE", f"/agents/{segment(agent)}/sessions/{segment(session)}", no_body)


def get_session(agent: str, session: str) -> Call[SessionRead]:
    path = f"/agents/{segment(agent)}/sessions/{segment(session)}"
    return Call("GET", path, decode(SessionRead.model_validate_json))


def put_agent(agent: str, fields: Mapping[str, object]) -> Call[AgentRead]:
    path = f"/agents/{segment(agent)}"
    return Call("PUT", path, decode(AgentRead.model_validate_json), json_ready(fields))


def get_agent(agent: str) -> Call[AgentRead]:
    return Call("GET", f"/agents/{segment(agent)}", decode(AgentRead.model_validate_json))


def agents(cursor: str | None, limit: int | None) -> Call[AgentPage]:
    params = page_params(cursor, limit)
    return Call("GET", "/agents", decode(AgentPage.model_validate_json), params=params)


def delete_agent(agent: str) -> Call[None]:
    return Call("DELETE", f"/agents/{segment(agent)}", no_body)


class MemoryFilters(TypedDict, total=False):
    """`GET /agents/{agent_id}/memories`' filters: kinds and states (one or several), words
    (`q`, best match first), metadata (a JSON object the memories' metadata contains), and the
    page's size."""

    kind: Kind | Sequence[Kind]
    state: str | Sequence[str]
    q: str
    metadata: Mapping[str, JsonValue]
    limit: int


def memories(agent: str, filters: MemoryFilters, cursor: str | None) -> Call[MemoryPage]:
    params: dict[str, str | int | list[str]] = {}
    for name, chosen in (("kind", filters.get("kind")), ("state", filters.get("state"))):
        if chosen:
            params[name] = [chosen] if isinstance(chosen, str) else [str(c) for c in chosen]
    if "q" in filters:
        params["q"] = filters["q"]
    if "metadata" in filters:  # a JSON object in the query string, not Python's repr
        params["metadata"] = json.dumps(json_ready(filters["metadata"]), ensure_ascii=False)
    params |= page_params(cursor, filters.get("limit"))
    path = f"/agents/{segment(agent)}/memories"
    return Call("GET", path, decode(MemoryPage.model_validate_json), params=params)


def remember_batch(
    agent: str, memories: Sequence[Mapping[str, object] | BaseModel], idempotency_key: str | None
) -> Call[MemoryBatchRead]:
    """Memories of any kinds in one request: all are written, or none (a 422 names the one at
    fault by its index)."""
    path = f"/agents/{segment(agent)}/memories/batch"
    body = {"memories": json_ready(list(memories))}
    read = decode(MemoryBatchRead.model_validate_json)
    return Call("POST", path, read, body, headers=keyed(idempotency_key))


def search(
    agent: str, query: str, kinds: str | Sequence[str], limit: int | None
) -> Call[MemorySearchResponse]:
    path = f"/agents/{segment(agent)}/memories/search"
    params: dict[str, str | int | list[str]] = {"q": query}
    if kinds:
        params["kind"] = [kinds] if isinstance(kinds, str) else list(kinds)
    if limit is not None:
        params["limit"] = limit
    return Call("GET", path, decode(MemorySearchResponse.model_validate_json), params=params)


def memory_history(memory_id: str) -> Call[MemoryHistory]:
    path = f"/memories/{segment(memory_id)}/history"
    return Call("GET", path, decode(MemoryHistory.model_validate_json))


def builds(agent: str, cursor: str | None, limit: int | None) -> Call[ContextBuildList]:
    params: dict[str, str | int | list[str]] = {"agent_id": agent, **page_params(cursor, limit)}
    return Call("GET", "/context", decode(ContextBuildList.model_validate_json), params=params)


def get_memory(memory_id: str) -> Call[MemoryRead]:
    path = f"/memories/{segment(memory_id)}"
    return Call("GET", path, decode(MemoryRead.model_validate_json))


def update_memory(memory_id: str, action: Mapping[str, object] | BaseModel) -> Call[MemoryRead]:
    path = f"/memories/{segment(memory_id)}"
    return Call("PATCH", path, decode(MemoryRead.model_validate_json), json_ready(action))


def delete_memory(memory_id: str, erase: bool) -> Call[None]:
    params = {"erase": "true"} if erase else None
    return Call("DELETE", f"/memories/{segment(memory_id)}", no_body, params=params)


def raw(
    method: str,
    path: str,
    body: object,
    params: Mapping[str, str | int | list[str]] | None,
    idempotency_key: str | None,
) -> Call[httpx.Response]:
    """Any route: the response as it came (an error status raised as its exception)."""
    headers = keyed(idempotency_key)
    return Call(method.upper(), path, lambda response: response, json_ready(body), params, headers)
