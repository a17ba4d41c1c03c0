"""The expand_memory tool: one of the agent's memories at the detail the model asks for (its
full record by default)."""

from typing import Literal

from pydantic import Field

from app.core.errors import NotFound
from app.core.fields import Id, RequestBody
from app.memories.cold_repository import ColdStorage
from app.memories.repository import MemoryRepository
from app.tools.types import Item, Reference, Section, ToolCall, ToolOutput

DESCRIPTION = (
    "Read one of the agent's memories in full (or at another detail level), by the id "
    "search_memory or the context's manifest gave. Use it when a memory's summary is not "
    "enough to answer."
)


class ExpandMemoryArguments(RequestBody):
    """expand_memory's arguments."""

    memory_id: Id = Field(description="The memory's id (a UUID).")
    level: Literal["micro", "summary", "full"] = Field(
        default="full",
        description="micro: one line; summary: a short paragraph; full: the whole record.",
    )


async def expand_memory(call: ToolCall, arguments: ExpandMemoryArguments) -> ToolOutput:
    """The memory's text at the level asked; 404 when the agent has no such memory."""
    found = await MemoryRepository(call.session).get(call.tenant.id, arguments.memory_id)
    if found is None or found[0].agent_id != call.agent.id:
        raise NotFound(
            f"Memory {arguments.memory_id} does not exist for agent '{call.agent.name}'.",
            errors=[{"loc": ["body", "arguments", "memory_id"], "msg": "no such memory"}],
        )
    memory = found[0]
    # An episode retention trimmed keeps its whole record in cold storage.
    full = await ColdStorage(call.session).full_text(memory) if arguments.level == "full" else ""
    text = {"micro": memory.micro, "summary": memory.summary, "full": full}
    title = (
        f"[memory {memory.id}] {memory.kind}, {memory.state}, "
        f"{memory.occurred_at:%Y-%m-%d} ({arguments.level}):"
    )
    item = Item(text[arguments.level], Reference("memory", memory.id))
    return ToolOutput((Section(title, (item,), ""),))
