"""The list's keyset cursor: a position in an agent's memories, newest first.

A cursor is `<microseconds since 1970-01-01 UTC>_<memory id>` of the last memory of a page. Any
value of that form is a position: the next page lists the memories written before it (and, at
the same microsecond, with a smaller id), so a cursor never needs to have been issued.
"""

import uuid
from datetime import UTC, datetime, timedelta

from app.memories.models import Memory

CURSOR_PATTERN = r"^[0-9]{1,18}_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# Past Python's last datetime every memory is before the position: list from the newest.
_LATEST = datetime.max.replace(tzinfo=UTC)


def encode_cursor(memory: Memory) -> str:
    """The position just after `memory` in the newest-first order."""
    micros = (memory.created_at - _EPOCH) // timedelta(microseconds=1)
    return f"{micros}_{memory.id}"


def decode_cursor(cursor: str) -> tuple[datetime, uuid.UUID]:
    """The (created_at, id) of a cursor that matches CURSOR_PATTERN."""
    micros, memory_id = cursor.split("_")
    try:
        created_at = _EPOCH + timedelta(microseconds=int(micros))
    except OverflowError:
        created_at = _LATEST
    return created_at, uuid.UUID(memory_id)
