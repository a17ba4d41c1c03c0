"""Erasure: a memory leaves for good, its text everywhere it was stored, and a tombstone stays.

The row goes with everything that hangs on it (jobs, lifecycle log, retention's records, by
the foreign keys' cascades); its text leaves the stored builds that showed it (`MemoryPeers`:
`app/context/followups/stored_builds.py`) and the stored responses an Idempotency-Key would replay;
the tombstone keeps its id, kind and time of erasure, so the builds and calibrations that
counted it stay explainable and reading it answers 410. A build running while the memory is
erased may still store it: it read the memory before the erasure committed.
"""

import uuid

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import Conflict, Gone, NotFound
from app.core.idempotency import IdempotencyRepository, erased_response
from app.core.time import utcnow
from app.memories import lifecycle
from app.memories.models import Memory
from app.memories.peers import MemoryPeers
from app.memories.repository import MemoryRepository
from app.memories.tombstone_repository import TombstoneRepository
from app.tenants.models import Tenant


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
    session: AsyncSession, peers: MemoryPeers, tenant: Tenant, memory_id: uuid.UUID, *, erase: bool
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
    await erase_memory(session, peers, tenant, memory)


async def erase_memory(
    session: AsyncSession, peers: MemoryPeers, tenant: Tenant, memory: Memory
) -> None:
    """Erase the memory: its row, its text in stored builds and replays; keep a tombstone."""
    memories = MemoryRepository(session)
    # The builds first, then the memory: feedback locks a build, then counts its memories.
    naming = await peers.builds_naming(session, memory)
    locked = await memories.get(tenant.id, memory.id, for_update=True)
    if locked is None:  # erased meanwhile
        raise await missing(session, tenant.id, memory.id)
    memory, erased_at = locked[0], utcnow()
    await peers.scrub_builds(session, naming, memory, erased_at)
    await IdempotencyRepository(session).forget(
        memory.tenant_id, memory.id, erased_response(memory.id, memory.kind, erased_at)
    )
    await TombstoneRepository(session).add(memory, erased_at)
    await memories.erase(memory.id, memory.superseded_by)
