"""Field types of request bodies: strict JSON types, and the limits PostgreSQL puts on values.

FastAPI validates a body with `validate_python` on the parsed JSON, so a strict model turns
away `true` for an int, `"5"` for a number and `0` for a bool; times and ids come as strings
in JSON and are parsed from strings only, and an integer may be written 2000.0 (JSON has one
number type). Query and path parameters arrive as text and stay lax.
"""

import math
import re
import uuid
from typing import TYPE_CHECKING, Annotated

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    JsonValue,
    Strict,
)
from typing_extensions import TypeAliasType

# NUL cannot be stored by PostgreSQL in text or jsonb. Lone surrogates are not Unicode text and
# are refused too, but JSON Schema validators built on Rust strings cannot compile a pattern
# that names them, so the schema says NUL only; `_reject_nul` enforces both. It says it as
# "does not match \u0000": test generators make long valid strings for that, not for a
# whole-string pattern such as ^[^\u0000]*$ with a maxLength of 200,000.
NO_NUL: dict[str, JsonValue] = {"not": {"type": "string", "pattern": r"\u0000"}}
# A query parameter's text, checked by FastAPI's pattern (query strings are lax, not models).
QUERY_TEXT_PATTERN = r"^[^\x00]*$"
# What str.strip() removes, spelled out: regex engines disagree on what \s covers.
_SPACE = r"\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
NOT_BLANK_PATTERN = rf"[^{_SPACE}]"  # somewhere a character that is not space
# A query parameter that must hold a word: no NUL, and somewhere a character that is not space.
QUERY_WORDS_PATTERN = rf"^[^\x00]*[^{_SPACE}\x00][^\x00]*$"
_NUL_MESSAGE = "text must not contain NUL (\\u0000) characters"
_MAX_DEPTH = 32
# RFC 3339 with its offset. The years keep clear of both ends of Python's datetime (1 to 9999)
# whatever the offset, so every time that matches converts to UTC and back.
_YEAR = r"(000[3-9]|00[1-9]\d|0[1-9]\d\d|[1-8]\d{3}|9[0-8]\d\d|99[0-8]\d|999[0-7])"
TIMESTAMP_PATTERN = (
    rf"^{_YEAR}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt]([01]\d|2[0-3]):[0-5]\d:[0-5]\d"
    r"(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$"
)
_TIMESTAMP = re.compile(TIMESTAMP_PATTERN)


class RequestBody(BaseModel):
    """A JSON request body: unknown fields and values of the wrong JSON type are errors."""

    model_config = ConfigDict(extra="forbid", strict=True)


def _reject_nul(value: str) -> str:
    if "\x00" in value:
        raise ValueError(_NUL_MESSAGE)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError("text must be valid Unicode (no lone surrogates)") from exc
    return value


def _reject_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("text must not be blank")
    return value


def check_json(value: JsonValue, depth: int = 0) -> JsonValue:
    """A JSON value PostgreSQL can store: no NUL, finite numbers, bounded nesting."""
    if depth > _MAX_DEPTH:
        raise ValueError(f"JSON nested deeper than {_MAX_DEPTH} levels")
    if isinstance(value, str):
        _reject_nul(value)
    elif isinstance(value, float) and not math.isfinite(value):
        raise ValueError("numbers must be finite (no NaN or Infinity)")
    elif isinstance(value, list):
        for item in value:
            check_json(item, depth + 1)
    elif isinstance(value, dict):
        for key, item in value.items():
            _reject_nul(key)
            check_json(item, depth + 1)
    return value


def _whole_number(value: object) -> object:
    # JSON has one number type: 2000.0 is the integer 2000 to JSON Schema too. A fraction, a
    # string or a boolean is still refused by the strict int that follows.
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _rfc3339(value: object) -> object:
    if not isinstance(value, str) or not _TIMESTAMP.match(value):
        raise ValueError(
            "expected an RFC 3339 date-time string with its offset, e.g. 2026-01-31T09:30:00Z "
            "(years 0003 to 9997)"
        )
    return value


NoNul = AfterValidator(_reject_nul)
# Every text field says so in its schema; `NoNul` enforces it (pydantic's regex engine is not
# needed for a rule the validator already checks).
Text = Annotated[str, Field(json_schema_extra=NO_NUL), NoNul]
NotBlankText = Annotated[
    str,
    Field(json_schema_extra={**NO_NUL, "pattern": NOT_BLANK_PATTERN}),
    NoNul,
    AfterValidator(_reject_blank),
]
Label = Annotated[Text, Field(min_length=1, max_length=200)]
Line = Annotated[Text, Field(min_length=1, max_length=2000)]
LongText = Annotated[Text, Field(min_length=1, max_length=200_000)]
_NUL_FREE_KEYS: dict[str, JsonValue] = {"propertyNames": NO_NUL}


def stored_json_schema() -> dict[str, JsonValue]:
    """StoredJson's schema as one flat JSON Schema: each keyword applies to its own type.

    Equivalent to the anyOf pydantic writes, and what schema-based test generators negate
    correctly (a mutated branch of an anyOf may still match another branch)."""
    ref = "#/components/schemas/StoredJson"
    return {
        "description": f"Any JSON without NUL in its strings and keys, nested at most "
        f"{_MAX_DEPTH} levels deep, its numbers finite.",
        "type": ["string", "number", "boolean", "null", "array", "object"],
        **NO_NUL,
        "items": {"$ref": ref},
        "propertyNames": NO_NUL,
        "additionalProperties": {"$ref": ref},
    }


if TYPE_CHECKING:
    StoredJson = JsonValue
else:
    # Validated like pydantic's JsonValue, with a named schema of its own that says what may be
    # stored (mypy reads it as the JsonValue it is).
    StoredJson = TypeAliasType(
        "StoredJson",
        Annotated[
            Text
            | int
            | float
            | bool
            | list["StoredJson"]
            | Annotated[dict[str, "StoredJson"], Field(json_schema_extra=_NUL_FREE_KEYS)]
            | None,
            Field(
                description=f"Any JSON without NUL in its strings and keys, nested at most "
                f"{_MAX_DEPTH} levels deep, its numbers finite."
            ),
        ],
    )
JsonObject = Annotated[
    dict[str, StoredJson], Field(json_schema_extra=_NUL_FREE_KEYS), AfterValidator(check_json)
]
Timestamp = Annotated[
    AwareDatetime,
    Strict(False),
    BeforeValidator(_rfc3339),
    Field(json_schema_extra={"pattern": TIMESTAMP_PATTERN}),
]
Id = Annotated[uuid.UUID, Strict(False)]
# After an int's own constraints, as in Annotated[int, Field(ge=1), WholeNumber]: placed before
# them it would keep pydantic from putting them in the JSON Schema as minimum and maximum.
WholeNumber = BeforeValidator(_whole_number)
