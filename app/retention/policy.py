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
  state but ranks at `fact_stale_factor` of its score; a confirmation or reference puts it back
  at 1 at once (`fact_fresh` does when a run finds it no longer stale, settings changed).

Coordinated forgetting (kgents): past `max_active_memories` or `max_active_tokens` in play, the
least salient facts, procedures and episodes are `forgotten` until the agent is back at
`forget_to` of the limit (rounded up; an agent's own limits, `RetentionLimit`, come first).
Decisions are permanent records and censors are rules the agent set itself: neither is ever
forgotten. A memory restored after being forgotten is not forgotten again.
"""

import math
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from pydantic import JsonValue

from app.core.config import RetentionSettings
from app.retention.forgetting import forget, pressure
from app.retention.types import FORGOTTEN, Change, Held, Plan, Rule, days, in_play


def _episode(memory: Held, now: datetime, rules: RetentionSettings) -> Change | None:
    age = days(now, memory.occurred_at)
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
    age = days(now, memory.occurred_at)
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
    age = days(now, memory.occurred_at)
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
    quiet = days(now, max(memory.occurred_at, memory.last_referenced_at or memory.occurred_at))
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


def _after(memory: Held, change: Change) -> Held:
    """The memory as the change leaves it (a trimmed episode weighs about its summary)."""
    tokens = memory.summary_tokens if change.rule.startswith("episode") else memory.tokens
    return replace(
        memory,
        state=change.to_state,
        rank_factor=change.rank_factor if change.rank_factor is not None else memory.rank_factor,
        tokens=min(tokens, memory.tokens),
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
