"""The rules alone, on plain data: thresholds, salience order, where forgetting stops."""

import uuid
from datetime import timedelta

from app.core.config import RetentionSettings
from app.retention.forgetting import forget, salience
from app.retention.policy import lifecycle_change, plan
from app.retention.types import Held
from tests.retention.writes import NOW


def held(kind: str, state: str, days_old: float, **extra: object) -> Held:
    return Held(
        memory_id=uuid.uuid4(),
        kind=kind,
        state=state,
        occurred_at=NOW - timedelta(days=days_old),
        **extra,  # type: ignore[arg-type]  # the test passes Held's own fields
    )


RULES = RetentionSettings()


def test_episode_thresholds_are_inclusive_and_a_zero_turns_a_rule_off() -> None:
    assert lifecycle_change(held("episode", "active", 29.9), NOW, RULES) is None
    month = lifecycle_change(held("episode", "active", 30), NOW, RULES)
    assert month is not None
    assert month.to_state == "summarized"
    archived = lifecycle_change(held("episode", "summarized", 90), NOW, RULES)
    assert archived is not None
    assert (archived.from_state, archived.to_state) == (
        "summarized",
        "archived",
    )
    never = RetentionSettings(episode_summarize_days=0, episode_archive_days=0)
    assert lifecycle_change(held("episode", "active", 4000), NOW, never) is None


def test_a_procedure_is_judged_on_enough_activations_only() -> None:
    few = held("procedure", "active", 10, activations=4, successes=0)
    assert lifecycle_change(few, NOW, RULES) is None
    even = held("procedure", "active", 10, activations=6, successes=3)
    assert lifecycle_change(even, NOW, RULES) is None
    failing = held("procedure", "ineffective", 10, activations=6, successes=2)
    change = lifecycle_change(failing, NOW, RULES)
    assert change is not None
    assert change.rule == "procedure_failing"


def test_salience_prefers_recent_used_confirmed_trusted() -> None:
    base = held("fact", "new", 100, confidence=0.5)
    score, parts = salience(base, NOW, 30)
    assert set(parts) == {"recency", "use", "standing", "confidence"}
    for better in (
        held("fact", "new", 1, confidence=0.5),
        held("fact", "new", 100, confidence=0.5, reference_count=3),
        held("fact", "core", 100, confidence=0.5),
        held("fact", "new", 100, confidence=0.9),
    ):
        assert salience(better, NOW, 30)[0] > score
    assert salience(held("fact", "new", 100, confidence=0.5, rank_factor=0.5), NOW, 30)[0] < score


def test_forgetting_stops_under_the_share_of_the_limit_and_spares_decisions() -> None:
    rules = RetentionSettings(max_active_memories=10, forget_to=0.8)
    memories = [held("decision", "recorded", 900) for _ in range(5)]
    memories += [held("fact", "new", 10 + i, confidence=0.5) for i in range(7)]
    changes = forget(memories, NOW, rules)
    assert len(changes) == 12 - 8
    assert {c.kind for c in changes} == {"fact"}
    # The oldest facts (least recent) go first.
    oldest = sorted(memories[5:], key=lambda m: m.occurred_at)[:4]
    assert [c.memory_id for c in changes] == [m.memory_id for m in oldest]
    assert forget(memories[:10], NOW, rules) == []  # at the limit, not past it


def test_token_limit_counts_trimmed_episodes_at_their_summary() -> None:
    rules = RetentionSettings(max_active_tokens=1000, forget_to=1.0)
    old = held("episode", "active", 40, tokens=900, summary_tokens=50)
    recent = held("fact", "new", 1, tokens=200)
    result = plan([old, recent], NOW, rules)
    assert [c.rule for c in result.changes] == ["episode_summarized"]
    assert result.pressure.tokens == 250
