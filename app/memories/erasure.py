"""Erasure: a memory leaves for good, its text everywhere it was stored, and a tombstone stays.

The row goes with everything that hangs on it (jobs, lifecycle log, retention's records, by
the foreign keys' cascades); its text leaves the stored builds that showed it (`app.context.
scrub`) and the stored responses an Idempotency-Key would replay; the tombstone keeps its id,
kind and time of erasure, so the builds and calibrations that counted it stay explainable and
reading it answers 410. A build running while the memory is erased may still store it: it read
the memory before the erasure committed.
"""

import asyncio
import uuid

from sqlalchemy.ext.asyncio import AsyncSession

from app.context.followups.scrub import ErasedMemory, scrub, shown_blocks
from app.context.repository import ContextRepository
from app.context.schemas import ContextBuildResponse
from app.core.errors import Conflict, Gone, NotFound
from app.core.idempotency import IdempotencyRepository, erased_response
from app.core.time import utcnow
from app.memories import lifecycle
from app.memories.models import Memory
from app.memories.repository import MemoryRepository
from app.memories.tombstone_repository import TombstoneRepository
from app.tenants.models import Tenant

_BUILDS_AT_ONCE = 200  # stored builds read and rewritten together (up to ~70 KB each)


async def missing(session: AsyncSession, tenant_id: uuid.UUID, memory_id: uuid.UUID) -> NotFound:
    """The error for a memory the tenant does not have: 410 once erased, else 404."""
    tombstone = await TombstoneRepository(session).get(tenant_id, memory_id)
    if tombstone is None:
        return NotFound(f"Memory {memory_id} does not exist.")
    return Gone(
        f"Memory {memory_id} (a {tombstone.kind}) was erased at "
        f"{tombstone.erased_at.isoformat()}; nothing of it is kept but its id, kind and time "
        "of erasure.",
        kind=tombstone.kind,
        erased_at=tombstone.erased_at.isoformat(),
    )


async def delete_memory(
    session: AsyncSession, tenant: Tenant, memory_id: uuid.UUID, *, erase: bool
) -> None:
    """Erase a memory, keeping a tombstone; a decision only when the request says `erase`
    (409 says how), as decisions are otherwise permanent records."""
    found = await MemoryRepository(session).get(tenant.id, memory_id)
    if found is None:
        raise await missing(session, tenant.id, memory_id)
    memory = found[0]
    if memory.kind == "decision" and not erase:
        allowed = lifecycle.allowed_actions("decision", memory.state)
        raise Conflict(
            "Decisions are permanent records: PATCH corrects them ("
            + ", ".join(f"`{action}`" for action in allowed)
            + f"). To erase this one for good, send DELETE /memories/{memory_id}?erase=true: "
            "its text leaves every stored build, and only its id, kind and time of erasure "
            "are kept.",
            state=memory.state,
            allowed_actions=allowed,
        )
    await erase_memory(session, tenant, memory)


async def erase_memory(session: AsyncSession, tenant: Tenant, memory: Memory) -> None:
    """Erase the memory: its row, its text in stored builds and replays; keep a tombstone."""
    builds, memories = ContextRepository(session), MemoryRepository(session)
    # The builds first, then the memory: feedback locks a build, then counts its memories.
    naming = await builds.builds_naming(memory.agent_id, memory.id, memory.created_at)
    locked = await memories.get(tenant.id, memory.id, for_update=True)
    if locked is None:  # erased meanwhile
        raise await missing(session, tenant.id, memory.id)
    memory = locked[0]
    erased = ErasedMemory(
        memory_id=memory.id,
        kind=memory.kind,
        erased_at=utcnow(),
        shown=shown_blocks(memory.kind, memory.micro, memory.summary, memory.fields),
        full_text=memory.full_text,
    )
    for start in range(0, len(naming), _BUILDS_AT_ONCE):
        stored = await builds.responses(naming[start : start + _BUILDS_AT_ONCE])
        # Parsing and writing stored builds is CPU work: off the event loop.
        await builds.replace_responses(await asyncio.to_thread(_scrubbed, stored, erased))
    await IdempotencyRepository(session).forget(
        memory.tenant_id, memory.id, erased_response(memory.id, memory.kind, erased.erased_at)
    )
    await TombstoneRepository(session).add(memory, erased.erased_at)
    await memories.erase(memory.id, memory.superseded_by)


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
