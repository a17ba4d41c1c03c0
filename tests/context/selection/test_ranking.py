"""The composite score, as a pure function."""

import dataclasses
import uuid
from datetime import UTC, datetime, timedelta

from app.context.frames.catalogue import BUILTIN_FRAMES
from app.context.selection.budget import neighbour_hits
from app.context.selection.ranking import rank
from app.context.types import Candidate, Frame, Scored
from app.core.context_config import ContextSettings

NOW = datetime(2026, 11, 1, tzinfo=UTC)
SETTINGS = ContextSettings()


def ranked(candidates: list[Candidate], frame: Frame) -> list[Scored]:
    """Ranked with the weights the service ships with."""
    return rank(candidates, frame, NOW, SETTINGS.weights, SETTINGS.half_life_days)


def memory(semantic: float, age_days: float, **extra: object) -> Candidate:
    fields: dict[str, object] = {
        "memory_id": uuid.uuid4(),
        "kind": "fact",
        "micro": "m",
        "summary": "s",
        "semantic": semantic,
        "lexical": 0.0,
        "occurred_at": NOW - timedelta(days=age_days),
        **extra,
    }
    return Candidate(**fields)  # type: ignore[arg-type]  # test data of the right types


def test_seed_components_and_weights() -> None:
    (scored,) = ranked([memory(0.8, 30, confidence=0.5)], BUILTIN_FRAMES["debug"])
    parts = scored.components
    assert parts["semantic"] == 0.8
    assert abs(parts["recency"] - 0.5) < 1e-3  # 30-day half-life
    assert parts["frame"] == BUILTIN_FRAMES["debug"].priorities["fact"]
    expected = (
        0.5 * 0.8
        + 0.15 * parts["frame"]
        + 0.15 * parts["recency"]
        + 0.10 * 1.0
        + 0.05 * 1.0
        + 0.05 * 0.5
    )
    assert abs(scored.score - expected) < 1e-4


def test_relevance_beats_recency_for_questions_not_for_debugging() -> None:
    old_match, new_weak = memory(0.62, 180), memory(0.5, 0)
    question = [s.candidate for s in ranked([old_match, new_weak], BUILTIN_FRAMES["question"])]
    debug = [s.candidate for s in ranked([old_match, new_weak], BUILTIN_FRAMES["debug"])]
    assert question[0] is old_match
    assert debug[0] is new_weak


def test_outcome_and_usage() -> None:
    frame = BUILTIN_FRAMES["decision"]
    base = memory(0.6, 10, kind="decision", outcome="success")
    failed = dataclasses.replace(base, memory_id=uuid.uuid4(), outcome="failure")
    used = dataclasses.replace(base, memory_id=uuid.uuid4(), usage=100)
    scores = {s.candidate.memory_id: s.score for s in ranked([base, failed, used], frame)}
    assert scores[used.memory_id] > scores[base.memory_id] > scores[failed.memory_id]


def test_bigger_budgets_bring_the_neighbours_of_more_hits() -> None:
    settings = ContextSettings()
    hits = {budget: neighbour_hits(settings, budget) for budget in (300, 1000, 2000, 4000, 8000)}
    assert hits == {300: 5, 1000: 5, 2000: 10, 4000: 20, 8000: 20}
    assert neighbour_hits(ContextSettings(neighbour_hits=0), 4000) == 0


def test_a_core_fact_outranks_a_confirmed_one_and_that_a_new_one() -> None:
    facts = [memory(0.5, 10, state=state) for state in ("new", "core", "confirmed")]
    order = [s.candidate.state for s in ranked(facts, BUILTIN_FRAMES["question"])]
    assert order == ["core", "confirmed", "new"]


def test_procedures_rank_by_how_often_they_worked_not_how_often_they_ran() -> None:
    procedures = [
        memory(0.5, 10, kind="procedure", effectiveness=0.2, usage=20),
        memory(0.5, 10, kind="procedure", effectiveness=None),
        memory(0.5, 10, kind="procedure", effectiveness=0.9, usage=20),
    ]
    order = [s.candidate.effectiveness for s in ranked(procedures, BUILTIN_FRAMES["question"])]
    assert order == [0.9, None, 0.2]
