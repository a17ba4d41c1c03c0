"""Field types shared by request schemas, with the limits PostgreSQL puts on stored values."""

import math
from datetime import UTC, datetime
from typing import Annotated

from pydantic import AfterValidator, AwareDatetime, Field, JsonValue

_NUL_MESSAGE = "text must not contain NUL (\\u0000) characters"
_MAX_INT = 2**63
_MAX_DEPTH = 32


def _reject_nul(value: str) -> str:
    if "\x00" in value:
        raise ValueError(_NUL_MESSAGE)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError("text must be valid Unicode (no lone surrogates)") from exc
    return value


def check_json(value: JsonValue, depth: int = 0) -> JsonValue:
    """A JSON value PostgreSQL can store: no NUL, finite numbers, bounded ints and nesting."""
    if depth > _MAX_DEPTH:
        raise ValueError(f"JSON nested deeper than {_MAX_DEPTH} levels")
    if isinstance(value, str):
        _reject_nul(value)
    elif isinstance(value, bool):
        pass
    elif isinstance(value, float) and not math.isfinite(value):
        raise ValueError("numbers must be finite (no NaN or Infinity)")
    elif isinstance(value, int) and abs(value) >= _MAX_INT:
        raise ValueError("integers must fit in 64 bits")
    elif isinstance(value, list):
        for item in value:
            check_json(item, depth + 1)
    elif isinstance(value, dict):
        for key, item in value.items():
            _reject_nul(key)
            check_json(item, depth + 1)
    return value


def check_timestamp(value: datetime) -> datetime:
    # PostgreSQL stores years 4713 BC to 294276 AD, Python's datetime 1 to 9999: keep what both
    # can hold once converted to UTC.
    try:
        utc = value.astimezone(UTC)
    except OverflowError as exc:
        raise ValueError("time out of range") from exc
    if not 1 < utc.year < 9999:
        raise ValueError("time must be between the years 2 and 9998")
    return value


NoNul = AfterValidator(_reject_nul)
Label = Annotated[str, Field(min_length=1, max_length=200), NoNul]
Line = Annotated[str, Field(min_length=1, max_length=2000), NoNul]
LongText = Annotated[str, Field(min_length=1, max_length=200_000), NoNul]
JsonObject = Annotated[dict[str, JsonValue], AfterValidator(check_json)]
Timestamp = Annotated[AwareDatetime, AfterValidator(check_timestamp)]
