"""What erasing a memory or a session does to the stored builds (handed to `app.memories` and
`app.sessions` by `app.main`: `MemoryPeers`, `SessionPeers`)."""

import asyncio
import uuid
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from app.context.followups.scrub import ErasedMemory, scrub, shown_blocks
from app.context.repository import ContextRepository
from app.context.schemas import ContextBuildResponse
from app.memories.models import Memory

_BUILDS_AT_ONCE = 200  # stored builds read and rewritten together (up to ~70 KB each)


async def builds_naming(session: AsyncSession, memory: Memory) -> list[uuid.UUID]:
    """The stored builds that may show the memory."""
    return await ContextRepository(session).builds_naming(
        memory.agent_id, memory.id, memory.created_at
    )


async def scrub_builds(
    session: AsyncSession, build_ids: Sequence[uuid.UUID], memory: Memory, erased_at: datetime
) -> None:
    """The memory's text out of those builds, its place kept (`scrub.py`)."""
    builds = ContextRepository(session)
    erased = ErasedMemory(
        memory_id=memory.id,
        kind=memory.kind,
        erased_at=erased_at,
        shown=shown_blocks(memory.kind, memory.micro, memory.summary, memory.fields),
        full_text=memory.full_text,
    )
    for start in range(0, len(build_ids), _BUILDS_AT_ONCE):
        stored = await builds.responses(build_ids[start : start + _BUILDS_AT_ONCE])
        # Parsing and writing stored builds is CPU work: off the event loop.
        await builds.replace_responses(await asyncio.to_thread(_scrubbed, stored, erased))


async def delete_session_builds(
    session: AsyncSession, agent_id: uuid.UUID, session_name: str
) -> list[uuid.UUID]:
    """Delete the agent's builds made with the session; their ids."""
    return await ContextRepository(session).delete_session_builds(agent_id, session_name)


def _scrubbed(
    stored: list[tuple[uuid.UUID, str]], erased: ErasedMemory
) -> list[tuple[uuid.UUID, str]]:
    return [
        (
            build_id,
            scrub(ContextBuildResponse.model_validate_json(response), erased).model_dump_json(),
        )
        for build_id, response in stored
    ]
