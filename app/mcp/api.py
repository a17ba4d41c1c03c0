"""The service's HTTP API as the MCP tools use it: a running service by its URL, or this
process's own app in process. Either way each call goes through the routes, so the key's
tenant, validation, transactions and errors are the API's own."""

import uuid
from typing import TypeVar

import httpx
from pydantic import BaseModel, JsonValue

from app.agents.schemas import AgentRead
from app.context.followups.schemas import ContextFeedbackResponse
from app.context.schemas import ContextBuildList, ContextBuildResponse
from app.memories.schemas import MemoryPage, MemoryRead, WrittenMemory
from app.sessions.schemas import MessageBatchRead
from app.tools.memory_search import MemorySearchResponse

ModelT = TypeVar("ModelT", bound=BaseModel)
JsonBody = dict[str, JsonValue]
Params = dict[str, str | int | list[str]]


class ApiError(Exception):
    """The service answered with a problem: its status, and what it said was wrong."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _problem_message(response: httpx.Response) -> str:
    """The problem+json's title, detail and fields at fault, on one line for the model."""
    try:
        problem = response.json()
    except ValueError:
        return f"{response.status_code}: {response.text[:500]}"
    if not isinstance(problem, dict):
        return f"{response.status_code}: {problem}"
    parts = [f"{response.status_code} {problem.get('title', '')}: {problem.get('detail', '')}"]
    errors = problem.get("errors")
    if isinstance(errors, list):
        for error in errors[:10]:
            if isinstance(error, dict):
                loc = ".".join(str(part) for part in error.get("loc") or [])
                parts.append(f"{loc}: {error.get('msg', '')}")
    return "; ".join(parts)


class ServiceApi:
    """Typed calls of the routes the MCP tools need, over one HTTP client with the key set."""

    def __init__(self, http: httpx.AsyncClient) -> None:
        self.http = http

    async def _send(
        self, method: str, path: str, *, body: JsonBody | None = None, params: Params | None = None
    ) -> httpx.Response:
        response = await self.http.request(method, path, json=body, params=params)
        if response.is_error:
            raise ApiError(response.status_code, _problem_message(response))
        return response

    async def _call(
        self,
        model: type[ModelT],
        method: str,
        path: str,
        *,
        body: JsonBody | None = None,
        params: Params | None = None,
    ) -> ModelT:
        response = await self._send(method, path, body=body, params=params)
        return model.model_validate_json(response.content)

    async def build(self, body: JsonBody) -> ContextBuildResponse:
        """POST /context/build."""
        return await self._call(ContextBuildResponse, "POST", "/context/build", body=body)

    async def remember(self, agent_id: str, memory: JsonBody) -> WrittenMemory:
        """POST /agents/{agent_id}/memories."""
        path = f"/agents/{agent_id}/memories"
        return await self._call(WrittenMemory, "POST", path, body=memory)

    async def memories(self, agent_id: str, params: Params) -> MemoryPage:
        """GET /agents/{agent_id}/memories: a page of them, newest (or best match) first."""
        path = f"/agents/{agent_id}/memories"
        return await self._call(MemoryPage, "GET", path, params=params)

    async def search(self, agent_id: str, params: Params) -> MemorySearchResponse:
        """GET /agents/{agent_id}/memories/search: by meaning and words, nothing stored."""
        path = f"/agents/{agent_id}/memories/search"
        return await self._call(MemorySearchResponse, "GET", path, params=params)

    async def delete(self, memory_id: uuid.UUID, *, erase: bool) -> None:
        """DELETE /memories/{memory_id}: erase it for good."""
        params: Params = {"erase": "true"} if erase else {}
        await self._send("DELETE", f"/memories/{memory_id}", params=params)

    async def append(self, agent_id: str, session_id: str, body: JsonBody) -> MessageBatchRead:
        """POST /agents/{agent_id}/sessions/{session_id}/messages."""
        path = f"/agents/{agent_id}/sessions/{session_id}/messages"
        return await self._call(MessageBatchRead, "POST", path, body=body)

    async def memory(self, memory_id: uuid.UUID) -> MemoryRead:
        """GET /memories/{memory_id}."""
        return await self._call(MemoryRead, "GET", f"/memories/{memory_id}")

    async def expand(self, memory_id: uuid.UUID, context_id: uuid.UUID | None) -> MemoryRead:
        """POST /context/expand: the full record, counted as a reference."""
        body: JsonBody = {"memory_id": str(memory_id)}
        if context_id is not None:
            body["context_id"] = str(context_id)
        return await self._call(MemoryRead, "POST", "/context/expand", body=body)

    async def update(self, memory_id: uuid.UUID, action: JsonBody) -> MemoryRead:
        """PATCH /memories/{memory_id}: one lifecycle action."""
        return await self._call(MemoryRead, "PATCH", f"/memories/{memory_id}", body=action)

    async def feedback(self, context_id: uuid.UUID, body: JsonBody) -> ContextFeedbackResponse:
        """POST /context/{context_id}/feedback."""
        path = f"/context/{context_id}/feedback"
        return await self._call(ContextFeedbackResponse, "POST", path, body=body)

    async def agent(self, agent_id: str) -> AgentRead:
        """GET /agents/{agent_id}."""
        return await self._call(AgentRead, "GET", f"/agents/{agent_id}")

    async def put_agent(self, agent_id: str, body: JsonBody) -> AgentRead:
        """PUT /agents/{agent_id}: create the agent, or replace its identity and defaults."""
        return await self._call(AgentRead, "PUT", f"/agents/{agent_id}", body=body)

    async def context(self, context_id: uuid.UUID) -> ContextBuildResponse:
        """GET /context/{context_id}: a stored build."""
        return await self._call(ContextBuildResponse, "GET", f"/context/{context_id}")

    async def contexts(self, agent_id: str, limit: int) -> ContextBuildList:
        """GET /context?agent_id=: the agent's latest builds."""
        params: Params = {"agent_id": agent_id, "limit": limit}
        return await self._call(ContextBuildList, "GET", "/context", params=params)
