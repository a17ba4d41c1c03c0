"""What sessions need of the packages built on them, handed in by `app.main` (a package imports
only from those below it: docs/layout.md, "Layers"): the efforts follow each append, and the
builds made with an erased session go with it."""

import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.context_config import EffortSettings
from app.sessions.models import ConversationSession, SessionMessage


@dataclass(frozen=True)
class SessionPeers:
    """`app.efforts.tracking.on_append` and the stored builds' `delete_session_builds`."""

    # Before appended messages are stored, under the session's lock: the efforts' turns, the
    # open effort of each message, the efforts they refer to.
    appended: Callable[
        [AsyncSession, ConversationSession, Sequence[SessionMessage], EffortSettings],
        Awaitable[None],
    ]
    # Delete the agent's builds made with the session (by its name); their ids.
    builds_erased: Callable[[AsyncSession, uuid.UUID, str], Awaitable[list[uuid.UUID]]]
