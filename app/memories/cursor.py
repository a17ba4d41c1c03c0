"""The list's keyset cursor: a position in an agent's memories, newest first.

A cursor is `<microseconds since 1970-01-01 UTC>_<memory id>` of the last memory of a page
(`app.core.cursor`): the next page lists the memories written before it.
"""

import uuid
from datetime import datetime

from app.core.cursor import MICROS_PATTERN, decode_position, encode_position
from app.memories.models import Memory

CURSOR_PATTERN = (
    rf"^{MICROS_PATTERN}_[0-9a-f]{{8}}-[0-9a-f]{{4}}-[0-9a-f]{{4}}-[0-9a-f]{{4}}-[0-9a-f]{{12}}$"
)


def encode_cursor(memory: Memory) -> str:
    """The position just after `memory` in the newest-first order."""
    return encode_position(memory.created_at, str(memory.id))


def decode_cursor(cursor: str) -> tuple[datetime, uuid.UUID]:
    """The (created_at, id) of a cursor that matches CURSOR_PATTERN."""
    created_at, memory_id = decode_position(cursor)
    return created_at, uuid.UUID(memory_id)
