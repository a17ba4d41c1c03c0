"""API keys: how they are made and hashed."""

import hashlib
import secrets

KEY_PREFIX = "ce_"


def new_api_key() -> str:
    """A random bearer key; the part before the second underscore is shown in listings."""
    return f"{KEY_PREFIX}{secrets.token_hex(4)}_{secrets.token_urlsafe(32)}"


def key_prefix(key: str) -> str:
    """The displayable start of a key."""
    return key[:11]


def hash_key(key: str) -> str:
    """SHA-256 of a key: keys are random and long, so a fast hash is enough."""
    return hashlib.sha256(key.encode()).hexdigest()
