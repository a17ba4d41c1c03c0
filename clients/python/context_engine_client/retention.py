"""Forgetting over time: run retention, read what it changed, restore a memory, the agent's own
limits (sync and async)."""

from __future__ import annotations

from datetime import datetime

from context_engine_client.calls import json_ready, keyed, page_params, segment
from context_engine_client.core import AsyncSender, Call, SyncSender, decode
from context_engine_client.models import (
    MemoryRestored,
    RetentionChangePage,
    RetentionLimitsRead,
    RetentionRunRead,
)


def run_retention(
    agent: str, now: datetime | None, dry_run: bool, idempotency_key: str | None
) -> Call[RetentionRunRead]:
    body = json_ready({"dry_run": dry_run} | ({"now": now} if now is not None else {}))
    path = f"/agents/{segment(agent)}/retention/run"
    read = decode(RetentionRunRead.model_validate_json)
    return Call("POST", path, read, body, headers=keyed(idempotency_key))


def retention_changes(
    agent: str, memory_id: str | None, cursor: int | None, limit: int | None
) -> Call[RetentionChangePage]:
    params: dict[str, str | int | list[str]] = {**page_params(cursor, limit)}
    if memory_id is not None:
        params["memory_id"] = memory_id
    path = f"/agents/{segment(agent)}/retention/changes"
    return Call("GET", path, decode(RetentionChangePage.model_validate_json), params=params)


def restore(memory_id: str) -> Call[MemoryRestored]:
    path = f"/memories/{segment(memory_id)}/restore"
    return Call("POST", path, decode(MemoryRestored.model_validate_json))


def retention_limits(agent: str) -> Call[RetentionLimitsRead]:
    path = f"/agents/{segment(agent)}/retention/limits"
    return Call("GET", path, decode(RetentionLimitsRead.model_validate_json))


def put_retention_limits(
    agent: str, max_active_memories: int | None, max_active_tokens: int | None
) -> Call[RetentionLimitsRead]:
    body = {"max_active_memories": max_active_memories, "max_active_tokens": max_active_tokens}
    path = f"/agents/{segment(agent)}/retention/limits"
    return Call("PUT", path, decode(RetentionLimitsRead.model_validate_json), body)


class SyncRetention:
    """`ContextEngine`'s retention methods."""

    def run_retention(
        self: SyncSender,
        agent: str,
        *,
        now: datetime | None = None,
        dry_run: bool = False,
        idempotency_key: str | None = None,
    ) -> RetentionRunRead:
        """Age the agent's memories as of `now` (default: the service's); `dry_run` only says
        what would change."""
        return self.send(run_retention(agent, now, dry_run, idempotency_key))

    def retention_changes(
        self: SyncSender,
        agent: str,
        *,
        memory_id: str | None = None,
        cursor: int | None = None,
        limit: int | None = None,
    ) -> RetentionChangePage:
        return self.send(retention_changes(agent, memory_id, cursor, limit))

    def restore(self: SyncSender, memory_id: str) -> MemoryRestored:
        """Undo coordinated forgetting of one memory."""
        return self.send(restore(memory_id))

    def retention_limits(self: SyncSender, agent: str) -> RetentionLimitsRead:
        return self.send(retention_limits(agent))

    def put_retention_limits(
        self: SyncSender,
        agent: str,
        *,
        max_active_memories: int | None = None,
        max_active_tokens: int | None = None,
    ) -> RetentionLimitsRead:
        """The agent's own limits (None: the service's setting)."""
        return self.send(put_retention_limits(agent, max_active_memories, max_active_tokens))


class AsyncRetention:
    """`AsyncContextEngine`'s retention methods."""

    async def run_retention(
        self: AsyncSender,
        agent: str,
        *,
        now: datetime | None = None,
        dry_run: bool = False,
        idempotency_key: str | None = None,
    ) -> RetentionRunRead:
        """Age the agent's memories as of `now` (default: the service's); `dry_run` only says
        what would change."""
        return await self.send(run_retention(agent, now, dry_run, idempotency_key))

    async def retention_changes(
        self: AsyncSender,
        agent: str,
        *,
        memory_id: str | None = None,
        cursor: int | None = None,
        limit: int | None = None,
    ) -> RetentionChangePage:
        return await self.send(retention_changes(agent, memory_id, cursor, limit))

    async def restore(self: AsyncSender, memory_id: str) -> MemoryRestored:
        """Undo coordinated forgetting of one memory."""
        return await self.send(restore(memory_id))

    async def retention_limits(self: AsyncSender, agent: str) -> RetentionLimitsRead:
        return await self.send(retention_limits(agent))

    async def put_retention_limits(
        self: AsyncSender,
        agent: str,
        *,
        max_active_memories: int | None = None,
        max_active_tokens: int | None = None,
    ) -> RetentionLimitsRead:
        """The agent's own limits (None: the service's setting)."""
        return await self.send(put_retention_limits(agent, max_active_memories, max_active_tokens))
