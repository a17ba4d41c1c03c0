"""The list's keyset cursor: a position in an agent's memories, newest first.

A cursor is `<microseconds since 1970-01-01 UTC>_<memory id>` of the last memory of a page
(`app.core.cursor`): the next page lists the memories written before it.
"""

import uuid
from datetime import datetime

from app.core.cursor import ID_CURSOR_PATTERN, decode_id_position, encode_position
from app.memories.models import Memory

CURSOR_PATTERN = ID_CURSOR_PATTERN


def encode_cursor(memory: Memory) -> str:
    """The position just after `memory` in the newest-first order."""
    return encode_position(memory.created_at, str(memory.id))


def decode_cursor(cursor: str) -> tuple[datetime, uuid.UUID]:
    """The (created_at, id) of a cursor that matches CURSOR_PATTERN."""
    return decode_id_position(cursor)
