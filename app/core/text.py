"""Text rules shared by every request schema: PostgreSQL text cannot hold NUL characters."""

from pydantic import AfterValidator, JsonValue

_NUL_MESSAGE = "text must not contain NUL (\\u0000) characters"


def _reject_nul(value: str) -> str:
    if "\x00" in value:
        raise ValueError(_NUL_MESSAGE)
    return value


def reject_nul_in_json(value: JsonValue) -> JsonValue:
    """Check every string, key included, of a JSON value."""
    if isinstance(value, str):
        _reject_nul(value)
    elif isinstance(value, list):
        for item in value:
            reject_nul_in_json(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            _reject_nul(key)
            reject_nul_in_json(item)
    return value


NoNul = AfterValidator(_reject_nul)
NoNulJson = AfterValidator(reject_nul_in_json)
