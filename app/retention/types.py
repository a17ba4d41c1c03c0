"""Plain data of retention's rules: what they read of a memory, the changes they make, the
pressure against the limits."""

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from pydantic import JsonValue

from app.memories.lifecycle import UNSEARCHABLE

FORGOTTEN = "forgotten"
FORGETTABLE_KINDS = ("fact", "procedure", "episode")
# States in which a memory is out of play: not searched, not counted against the limits.
OUT_OF_PLAY: dict[str, tuple[str, ...]] = {**UNSEARCHABLE, "censor": ("retired",)}

Rule = Literal[
    "episode_summarized",
    "episode_archived",
    "procedure_failing",
    "procedure_unused",
    "censor_idle",
    "fact_stale",
    "fact_fresh",
    "forgotten",
]


@dataclass(frozen=True)
class Held:
    """What the rules read of one memory."""

    memory_id: uuid.UUID
    kind: str
    state: str
    occurred_at: datetime
    seq: int = 0
    last_referenced_at: datetime | None = None
    reference_count: int = 0
    confidence: float | None = None
    activations: int = 0
    successes: int = 0
    action: str | None = None  # a censor's: warn or block
    rank_factor: float = 1.0
    tokens: int = 0  # its full text's, in the default encoding
    summary_tokens: int = 0
    pinned: bool = False  # restored after being forgotten


@dataclass(frozen=True)
class Change:
    """One change to one memory, the rule that makes it, and why in words and numbers."""

    memory_id: uuid.UUID
    kind: str
    rule: Rule
    from_state: str
    to_state: str
    reason: str
    details: dict[str, JsonValue]
    rank_factor: float | None = None  # the fact's new rank factor (fact rules only)


@dataclass(frozen=True)
class Pressure:
    """The agent's memories and tokens in play, and the limits (0: none)."""

    memories: int
    tokens: int
    max_memories: int
    max_tokens: int


@dataclass(frozen=True)
class Plan:
    """A run's changes, lifecycle ones first, and the pressure after them."""

    changes: list[Change]
    pressure: Pressure


def days(later: datetime, earlier: datetime) -> float:
    return (later - earlier).total_seconds() / 86400


def in_play(memory: Held) -> bool:
    """Searched and counted against the limits: not forgotten, retired, invalid or replaced."""
    return memory.state != FORGOTTEN and memory.state not in OUT_OF_PLAY.get(memory.kind, ())
