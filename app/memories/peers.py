"""What erasing a memory needs of the stored builds (`app.context`), handed in by `app.main` (a
package imports only from those below it: docs/layout.md, "Layers")."""

import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from app.memories.models import Memory


@dataclass(frozen=True)
class MemoryPeers:
    """`app.context.followups.stored_builds`'s two steps."""

    # The stored builds that may show the memory, read before the memory is locked (feedback
    # locks a build, then counts its memories).
    builds_naming: Callable[[AsyncSession, Memory], Awaitable[list[uuid.UUID]]]
    # The memory's text out of those builds, its place kept, erased at the given time.
    scrub_builds: Callable[[AsyncSession, Sequence[uuid.UUID], Memory, datetime], Awaitable[None]]
