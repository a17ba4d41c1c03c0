"""Retention's rules, pure: what ages by time and use, and what coordinated forgetting
deactivates when an agent holds too much. Plain data in, changes with their reasons out.

Lifecycles (the research note's "Garbage Collection & Lifecycle"), as of a run's `now`:

- an episode `active` for `episode_summarize_days` is `summarized`, one `episode_archive_days`
  old is `archived` (from active or summarized): its detail goes to cold storage;
- a procedure activated at least `procedure_min_activations` times that failed more often than
  it succeeded is `retired`; so is one never activated nor referenced `procedure_unused_days`
  after it was written;
- a `warn` censor never triggered `censor_idle_days` after it was written is `retired` (a
  `block` censor is a hard rule: it stays);
- a fact never confirmed (`new`) and not referenced for `fact_stale_days` keeps its data and
  state but ranks at `fact_stale_factor` of its score; confirmed or referenced again, it is back
  at 1 on the next run.

Coordinated forgetting (kgents): past `max_active_memories` or `max_active_tokens` in play, the
least salient facts, procedures and episodes are `forgotten` until the agent is under
`forget_to` of the limit. Decisions are permanent records and censors are rules the agent set
itself: neither is ever forgotten. A memory restored after being forgotten is not forgotten again.
"""

import math
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal

from pydantic import JsonValue

from app.core.config import RetentionSettings
from app.memories.lifecycle import UNSEARCHABLE

FORGOTTEN = "forgotten"
FORGETTABLE_KINDS = ("fact", "procedure", "episode")
# States in which a memory is out of play: not searched, not counted against the limits.
OUT_OF_PLAY: dict[str, tuple[str, ...]] = {**UNSEARCHABLE, "censor": ("retired",)}
# Salience, after kgents' scorer: how recent, how used, how it stands, how trusted.
SALIENCE_WEIGHTS = {"recency": 0.3, "use": 0.3, "standing": 0.2, "confidence": 0.2}
FACT_STANDING = {"new": 0.5, "confirmed": 0.75, "core": 1.0}
EPISODE_STANDING = {"active": 1.0, "summarized": 0.6, "archived": 0.3}

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


def _days(later: datetime, earlier: datetime) -> float:
    return (later - earlier).total_seconds() / 86400


def in_play(memory: Held) -> bool:
    """Searched and counted against the limits: not forgotten, retired, invalid or replaced."""
    return memory.state != FORGOTTEN and memory.state not in OUT_OF_PLAY.get(memory.kind, ())


def _episode(memory: Held, now: datetime, rules: RetentionSettings) -> Change | None:
    age = _days(now, memory.occurred_at)
    archive, summarize = rules.episode_archive_days, rules.episode_summarize_days
    rule: Rule
    if archive and age >= archive and memory.state in ("active", "summarized"):
        rule, to_state, limit = "episode_archived", "archived", archive
    elif summarize and age >= summarize and memory.state == "active":
        rule, to_state, limit = "episode_summarized", "summarized", summarize
    else:
        return None
    reason = (
        f"happened {age:.0f} days before {now:%Y-%m-%d}; episodes are {to_state} after "
        f"{limit:g} days: the summary stays, the detail is kept in cold storage"
    )
    details: dict[str, JsonValue] = {"age_days": round(age, 2), "after_days": limit}
    return Change(memory.memory_id, memory.kind, rule, memory.state, to_state, reason, details)


def _procedure(memory: Held, now: datetime, rules: RetentionSettings) -> Change | None:
    if memory.state not in ("active", "effective", "ineffective"):
        return None
    failures = memory.activations - memory.successes
    counts: dict[str, JsonValue] = {
        "activations": memory.activations,
        "successes": memory.successes,
        "failures": failures,
    }
    if memory.activations >= rules.procedure_min_activations and failures > memory.successes:
        reason = (
            f"failed {failures} of its {memory.activations} activations, more often than it "
            f"succeeded (judged after {rules.procedure_min_activations})"
        )
        details = counts | {"min_activations": rules.procedure_min_activations}
        return Change(
            memory.memory_id, "procedure", "procedure_failing", memory.state, "retired", reason,
            details,
        )  # fmt: skip
    age = _days(now, memory.occurred_at)
    unused = rules.procedure_unused_days
    if unused and age >= unused and memory.activations == 0 and memory.reference_count == 0:
        reason = f"never activated nor referenced in the {age:.0f} days since it was written"
        details = counts | {"age_days": round(age, 2), "after_days": unused}
        return Change(
            memory.memory_id, "procedure", "procedure_unused", memory.state, "retired", reason,
            details,
        )  # fmt: skip
    return None


def _censor(memory: Held, now: datetime, rules: RetentionSettings) -> Change | None:
    age = _days(now, memory.occurred_at)
    idle = rules.censor_idle_days
    if not idle or age < idle or memory.state != "created" or memory.action != "warn":
        return None  # `created`: never triggered (its first activation makes it active)
    reason = f"a warning never triggered in the {age:.0f} days since it was written"
    details: dict[str, JsonValue] = {"age_days": round(age, 2), "after_days": idle}
    return Change(memory.memory_id, "censor", "censor_idle", "created", "retired", reason, details)


def _fact(memory: Held, now: datetime, rules: RetentionSettings) -> Change | None:
    if not in_play(memory):
        return None
    stale_days = rules.fact_stale_days
    quiet = _days(now, max(memory.occurred_at, memory.last_referenced_at or memory.occurred_at))
    stale = bool(stale_days) and memory.state == "new" and quiet >= stale_days
    factor = rules.fact_stale_factor if stale else 1.0
    if math.isclose(factor, memory.rank_factor):
        return None
    details: dict[str, JsonValue] = {
        "quiet_days": round(quiet, 2),
        "after_days": stale_days,
        "rank_factor": factor,
        "previous_rank_factor": memory.rank_factor,
    }
    if stale:
        reason = (
            f"never confirmed and not referenced for {quiet:.0f} days: it ranks at "
            f"{factor:g} of its score (its data is kept)"
        )
        return Change(
            memory.memory_id, "fact", "fact_stale", memory.state, memory.state, reason, details,
            factor,
        )  # fmt: skip
    reason = "confirmed or referenced since it went stale: it ranks at its full score again"
    return Change(
        memory.memory_id, "fact", "fact_fresh", memory.state, memory.state, reason, details, factor
    )


_LIFECYCLES = {"episode": _episode, "procedure": _procedure, "censor": _censor, "fact": _fact}


def lifecycle_change(memory: Held, now: datetime, rules: RetentionSettings) -> Change | None:
    """The change age and use make to one memory as of `now`, or None."""
    rule = _LIFECYCLES.get(memory.kind)
    return rule(memory, now, rules) if rule else None


def salience(memory: Held, now: datetime, half_life_days: float) -> tuple[float, dict[str, float]]:
    """How worth keeping a memory is, 0 to 1, and its parts (each 0 to 1), times its rank
    factor: recent (happened or referenced), used (references and activations), standing (a
    fact's confirmations, a procedure's success rate, an episode's detail) and confidence."""
    last = max(memory.occurred_at, memory.last_referenced_at or memory.occurred_at)
    uses = memory.reference_count + memory.activations
    if memory.kind == "procedure":
        standing = memory.successes / memory.activations if memory.activations else 0.5
    elif memory.kind == "episode":
        standing = EPISODE_STANDING.get(memory.state, 0.5)
    else:
        standing = FACT_STANDING.get(memory.state, 0.5)
    parts = {
        "recency": math.exp(-math.log(2) * max(_days(now, last), 0.0) / half_life_days),
        "use": 1 - 1 / (1 + uses),
        "standing": standing,
        "confidence": memory.confidence if memory.confidence is not None else 0.5,
    }
    score = sum(SALIENCE_WEIGHTS[name] * value for name, value in parts.items())
    rounded = {name: round(value, 4) for name, value in parts.items()}
    return round(score * memory.rank_factor, 4), rounded


def _after(memory: Held, change: Change) -> Held:
    """The memory as the change leaves it (a trimmed episode weighs about its summary)."""
    tokens = memory.summary_tokens if change.rule.startswith("episode") else memory.tokens
    return replace(
        memory,
        state=change.to_state,
        rank_factor=change.rank_factor if change.rank_factor is not None else memory.rank_factor,
        tokens=min(tokens, memory.tokens),
    )


def pressure(memories: Sequence[Held], rules: RetentionSettings) -> Pressure:
    """The memories and tokens in play, against the limits."""
    playing = [m for m in memories if in_play(m)]
    return Pressure(
        memories=len(playing),
        tokens=sum(m.tokens for m in playing),
        max_memories=rules.max_active_memories,
        max_tokens=rules.max_active_tokens,
    )


def forget(memories: Sequence[Held], now: datetime, rules: RetentionSettings) -> list[Change]:
    """The least salient forgettable memories to deactivate, while the agent is past a limit,
    until it is under `forget_to` of it; none while under both limits."""
    before = pressure(memories, rules)
    over_count = bool(before.max_memories) and before.memories > before.max_memories
    over_tokens = bool(before.max_tokens) and before.tokens > before.max_tokens
    if not (over_count or over_tokens):
        return []
    target_count = math.floor(before.max_memories * rules.forget_to) if over_count else None
    target_tokens = math.floor(before.max_tokens * rules.forget_to) if over_tokens else None
    scored = [
        (salience(m, now, rules.salience_half_life_days), m)
        for m in memories
        if in_play(m) and m.kind in FORGETTABLE_KINDS and not m.pinned
    ]
    scored.sort(key=lambda pair: (pair[0][0], pair[1].occurred_at, pair[1].seq))
    count, tokens = before.memories, before.tokens
    changes: list[Change] = []
    for (score, parts), memory in scored:
        if (target_count is None or count <= target_count) and (
            target_tokens is None or tokens <= target_tokens
        ):
            break
        changes.append(_forgotten(memory, score, parts, before, count, tokens))
        count, tokens = count - 1, tokens - memory.tokens
    return changes


def _forgotten(
    memory: Held, score: float, parts: dict[str, float], before: Pressure, count: int, tokens: int
) -> Change:
    passed = []
    if before.max_memories and before.memories > before.max_memories:
        passed.append(f"{before.memories} memories in play, limit {before.max_memories}")
    if before.max_tokens and before.tokens > before.max_tokens:
        passed.append(f"{before.tokens} tokens in play, limit {before.max_tokens}")
    described = ", ".join(f"{name} {value:.2f}" for name, value in parts.items())
    reason = (
        f"salience {score:.3f} ({described}) was the lowest left while the agent was past its "
        f"limit ({'; '.join(passed)}); restore it to undo"
    )
    details: dict[str, JsonValue] = {
        "salience": score,
        "parts": dict(parts),
        "rank_factor": memory.rank_factor,
        "limit": {"memories": before.max_memories, "tokens": before.max_tokens},
        "in_play_before": {"memories": count, "tokens": tokens},
    }
    return Change(
        memory.memory_id, memory.kind, "forgotten", memory.state, FORGOTTEN, reason, details
    )


def plan(memories: Sequence[Held], now: datetime, rules: RetentionSettings) -> Plan:
    """Every change of a run as of `now`: lifecycles first, then forgetting on what they
    leave, and the pressure after both."""
    changes: list[Change] = []
    after: list[Held] = []
    for memory in memories:
        change = lifecycle_change(memory, now, rules)
        if change is not None:
            changes.append(change)
            memory = _after(memory, change)
        after.append(memory)
    forgotten = forget(after, now, rules)
    gone = {change.memory_id for change in forgotten}
    final = [replace(m, state=FORGOTTEN) if m.memory_id in gone else m for m in after]
    return Plan(changes + forgotten, pressure(final, rules))
