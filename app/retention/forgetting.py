"""Coordinated forgetting (kgents), pure: each memory's salience, the pressure against the
agent's limits, and the least salient memories to deactivate while it is past one."""

import math
from collections.abc import Sequence
from datetime import datetime

from pydantic import JsonValue

from app.core.config import RetentionSettings
from app.retention.types import FORGETTABLE_KINDS, FORGOTTEN, Change, Held, Pressure, days, in_play

# Salience, after kgents' scorer: how recent, how used, how it stands, how trusted.
SALIENCE_WEIGHTS = {"recency": 0.3, "use": 0.3, "standing": 0.2, "confidence": 0.2}
FACT_STANDING = {"new": 0.5, "confirmed": 0.75, "core": 1.0}
EPISODE_STANDING = {"active": 1.0, "summarized": 0.6, "archived": 0.3}


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
        "recency": math.exp(-math.log(2) * max(days(now, last), 0.0) / half_life_days),
        "use": 1 - 1 / (1 + uses),
        "standing": standing,
        "confidence": memory.confidence if memory.confidence is not None else 0.5,
    }
    score = sum(SALIENCE_WEIGHTS[name] * value for name, value in parts.items())
    rounded = {name: round(value, 4) for name, value in parts.items()}
    return round(score * memory.rank_factor, 4), rounded


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
    until it is at `forget_to` of it (rounded up); none while within both limits."""
    before = pressure(memories, rules)
    over_count = bool(before.max_memories) and before.memories > before.max_memories
    over_tokens = bool(before.max_tokens) and before.tokens > before.max_tokens
    if not (over_count or over_tokens):
        return []
    target_count = math.ceil(before.max_memories * rules.forget_to) if over_count else None
    target_tokens = math.ceil(before.max_tokens * rules.forget_to) if over_tokens else None
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
