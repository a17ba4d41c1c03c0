"""What an agent works with besides its memories: its frames and its working memory (sync and
async)."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, TypeAdapter

from context_engine_client.calls import json_ready, segment
from context_engine_client.core import AsyncSender, Call, SyncSender, decode
from context_engine_client.models import AgentRead, FrameView

_FRAMES = TypeAdapter(list[FrameView])


def frames(agent: str) -> Call[list[FrameView]]:
    return Call("GET", f"/agents/{segment(agent)}/frames", decode(_FRAMES.validate_json))


def put_frame(agent: str, name: str, frame: Mapping[str, object] | BaseModel) -> Call[FrameView]:
    path = f"/agents/{segment(agent)}/frames/{segment(name)}"
    return Call("PUT", path, decode(FrameView.model_validate_json), json_ready(frame))


def delete_frame(agent: str, name: str) -> Call[list[FrameView]]:
    path = f"/agents/{segment(agent)}/frames/{segment(name)}"
    return Call("DELETE", path, decode(_FRAMES.validate_json))


def put_working_memory(agent: str, memory: Mapping[str, object] | BaseModel) -> Call[AgentRead]:
    path = f"/agents/{segment(agent)}/working-memory"
    return Call("PUT", path, decode(AgentRead.model_validate_json), json_ready(memory))


class SyncAgentSetup:
    """`ContextEngine`'s methods for an agent's frames and working memory."""

    def frames(self: SyncSender, agent: str) -> list[FrameView]:
        """The frames the agent's builds choose from: the built-in five and its own."""
        return self.send(frames(agent))

    def put_frame(
        self: SyncSender, agent: str, name: str, frame: Mapping[str, object] | BaseModel
    ) -> FrameView:
        """Add a frame, or change one (a built-in one's fields override its own)."""
        return self.send(put_frame(agent, name, frame))

    def delete_frame(self: SyncSender, agent: str, name: str) -> list[FrameView]:
        return self.send(delete_frame(agent, name))

    def put_working_memory(
        self: SyncSender, agent: str, memory: Mapping[str, object] | BaseModel
    ) -> AgentRead:
        """Replace the agent's working memory (`current_task`, `open_threads`)."""
        return self.send(put_working_memory(agent, memory))


class AsyncAgentSetup:
    """`AsyncContextEngine`'s methods for an agent's frames and working memory."""

    async def frames(self: AsyncSender, agent: str) -> list[FrameView]:
        """The frames the agent's builds choose from: the built-in five and its own."""
        return await self.send(frames(agent))

    async def put_frame(
        self: AsyncSender, agent: str, name: str, frame: Mapping[str, object] | BaseModel
    ) -> FrameView:
        """Add a frame, or change one (a built-in one's fields override its own)."""
        return await self.send(put_frame(agent, name, frame))

    async def delete_frame(self: AsyncSender, agent: str, name: str) -> list[FrameView]:
        return await self.send(delete_frame(agent, name))

    async def put_working_memory(
        self: AsyncSender, agent: str, memory: Mapping[str, object] | BaseModel
    ) -> AgentRead:
        """Replace the agent's working memory (`current_task`, `open_threads`)."""
        return await self.send(put_working_memory(agent, memory))
