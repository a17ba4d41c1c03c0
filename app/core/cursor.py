"""Keyset cursors of the newest-first lists: a position `<microseconds since 1970 UTC>_<key>`.

The key breaks ties between rows created at the same microsecond (a memory's id, an agent's or
a session's name). Any value of that form is a position: the next page lists the rows created
before it (and, at the same microsecond, with a smaller key), so a cursor never needs to have
been issued.
"""

import uuid
from datetime import UTC, datetime, timedelta

MICROS_PATTERN = "[0-9]{1,18}"
# A position whose key is a row's id (a memory's, a build's).
ID_CURSOR_PATTERN = (
    rf"^{MICROS_PATTERN}_[0-9a-f]{{8}}-[0-9a-f]{{4}}-[0-9a-f]{{4}}-[0-9a-f]{{4}}-[0-9a-f]{{12}}$"
)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# Past Python's last datetime every row is before the position: list from the newest.
_LATEST = datetime.max.replace(tzinfo=UTC)


def encode_position(created_at: datetime, key: str) -> str:
    """The position just after a row in the newest-first order."""
    micros = (created_at - _EPOCH) // timedelta(microseconds=1)
    return f"{micros}_{key}"


def decode_position(cursor: str) -> tuple[datetime, str]:
    """The (created_at, key) of a cursor whose pattern the route checked: digits, `_`, key."""
    micros, _, key = cursor.partition("_")
    try:
        created_at = _EPOCH + timedelta(microseconds=int(micros))
    except OverflowError:
        created_at = _LATEST
    return created_at, key


def decode_id_position(cursor: str) -> tuple[datetime, uuid.UUID]:
    """The (created_at, id) of a cursor that matches ID_CURSOR_PATTERN."""
    created_at, key = decode_position(cursor)
    return created_at, uuid.UUID(key)
