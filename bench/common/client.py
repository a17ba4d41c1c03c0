"""The benchmarks' HTTP client of the service: agents, writes, patches, session messages,
builds, queue depth."""

import time
import uuid
from types import TracebackType

import httpx
from pydantic import JsonValue

from app.memories.schemas import MemoryBatchRead, MemoryRead
from bench.common.build_view import AppendView, BuildView, SessionView

MemoryBody = dict[str, JsonValue]
BATCH_MAX = 100


class ApiError(RuntimeError):
    """The service answered with an error."""


def _check(response: httpx.Response) -> None:
    if response.is_error:
        raise ApiError(
            f"{response.request.method} {response.request.url.path} -> "
            f"{response.status_code}: {response.text[:500]}"
        )


class ApiClient:
    """One connection pool to the service, authenticated with the tenant's key."""

    def __init__(self, base_url: str, api_key: str, max_connections: int = 32) -> None:
        self.http = httpx.AsyncClient(
            base_url=base_url,
            headers={"Authorization": f"Bearer {api_key}"},
            timeout=httpx.Timeout(300.0),
            limits=httpx.Limits(
                max_connections=max_connections, max_keepalive_connections=max_connections
            ),
        )

    async def __aenter__(self) -> "ApiClient":
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.http.aclose()

    async def put_agent(self, agent_id: str, name: str) -> None:
        """Create or replace an agent with a one-line identity."""
        response = await self.http.put(f"/agents/{agent_id}", json={"identity": {"name": name}})
        _check(response)

    async def upsert_agent(self, agent_id: str, body: dict[str, JsonValue]) -> None:
        """PUT /agents/{id} with a whole body (identity, model, default budget)."""
        _check(await self.http.put(f"/agents/{agent_id}", json=body))

    async def put_working_memory(self, agent_id: str, body: dict[str, JsonValue]) -> None:
        """Replace the agent's current task and open threads."""
        _check(await self.http.put(f"/agents/{agent_id}/working-memory", json=body))

    async def patch_memory(self, memory_id: uuid.UUID, body: dict[str, JsonValue]) -> MemoryRead:
        """One lifecycle action (record_outcome, supersede, ...) on a memory."""
        response = await self.http.patch(f"/memories/{memory_id}", json=body)
        _check(response)
        return MemoryRead.model_validate_json(response.content)

    async def write_batch(self, agent_id: str, memories: list[MemoryBody]) -> list[MemoryRead]:
        """Write up to BATCH_MAX memories in one request; the stored records, in order."""
        response = await self.http.post(
            f"/agents/{agent_id}/memories/batch", json={"memories": memories}
        )
        _check(response)
        return list(MemoryBatchRead.model_validate_json(response.content).memories)

    async def write_one(self, agent_id: str, memory: MemoryBody) -> MemoryRead:
        response = await self.http.post(f"/agents/{agent_id}/memories", json=memory)
        _check(response)
        return MemoryRead.model_validate_json(response.content)

    async def get_memory(self, memory_id: uuid.UUID) -> MemoryRead:
        response = await self.http.get(f"/memories/{memory_id}")
        _check(response)
        return MemoryRead.model_validate_json(response.content)

    async def append_messages(
        self, agent_id: str, session_id: str, messages: list[MemoryBody]
    ) -> list[int]:
        """Append messages in order to a session (created by the first); their seqs."""
        response = await self.http.post(
            f"/agents/{agent_id}/sessions/{session_id}/messages", json={"messages": messages}
        )
        _check(response)
        return [m.seq for m in AppendView.model_validate_json(response.content).messages]

    async def get_session(self, agent_id: str, session_id: str) -> SessionView:
        """A session's counts and the summaries made so far."""
        response = await self.http.get(f"/agents/{agent_id}/sessions/{session_id}")
        _check(response)
        return SessionView.model_validate_json(response.content)

    async def metrics(self) -> str:
        """The Prometheus text of /metrics."""
        response = await self.http.get("/metrics")
        _check(response)
        return response.text

    async def build(self, request: dict[str, JsonValue]) -> tuple[BuildView, float]:
        """POST /context/build; the response and the client-side latency in milliseconds."""
        started = time.perf_counter()
        response = await self.http.post("/context/build", json=request)
        elapsed_ms = (time.perf_counter() - started) * 1000
        _check(response)
        return BuildView.model_validate_json(response.content), elapsed_ms

    async def build_json(self, request: dict[str, JsonValue]) -> tuple[bytes, float]:
        """POST /context/build, unparsed (for readers of their own); the client latency in ms."""
        started = time.perf_counter()
        response = await self.http.post("/context/build", json=request)
        elapsed_ms = (time.perf_counter() - started) * 1000
        _check(response)
        return response.content, elapsed_ms

    async def pending_jobs(self) -> int:
        """Background jobs queued or running, from ce_job_queue_depth on /metrics."""
        response = await self.http.get("/metrics")
        _check(response)
        pending = 0.0
        for line in response.text.splitlines():
            if line.startswith("ce_job_queue_depth{") and (
                'state="queued"' in line or 'state="running"' in line
            ):
                pending += float(line.rsplit(" ", 1)[1])
        return int(pending)

    async def failed_jobs(self) -> int:
        """Background jobs that gave up, from ce_job_queue_depth on /metrics."""
        response = await self.http.get("/metrics")
        _check(response)
        return sum(
            int(float(line.rsplit(" ", 1)[1]))
            for line in response.text.splitlines()
            if line.startswith("ce_job_queue_depth{") and 'state="failed"' in line
        )
