"""State machines of each kind, as pure functions."""

import pytest
from pydantic import JsonValue, TypeAdapter

from app.memories import lifecycle
from app.memories.action_schemas import MemoryUpdate

_UPDATE: TypeAdapter[MemoryUpdate] = TypeAdapter(MemoryUpdate)


def act(kind: str, state: str, fields: dict[str, JsonValue], **body: JsonValue):  # type: ignore[no-untyped-def]
    return lifecycle.apply(kind, state, fields, _UPDATE.validate_python(body))


def test_decision_moves_recorded_pending_reviewed() -> None:
    assert act("decision", "recorded", {}, action="mark_pending").state == "pending"
    reviewed = act("decision", "pending", {}, action="record_outcome", outcome="success")
    assert (reviewed.state, reviewed.outcome, reviewed.rerender) == ("reviewed", "success", True)


def test_reviewed_decision_takes_an_amended_outcome_not_another_one() -> None:
    with pytest.raises(lifecycle.NotNow) as caught:
        act("decision", "reviewed", {}, action="record_outcome", outcome="failure")
    assert caught.value.allowed == ["amend_outcome"]
    fields: dict[str, JsonValue] = {"outcome": "success", "outcome_notes": "Fast."}
    amended = act("decision", "reviewed", fields, action="amend_outcome", outcome="failure")
    assert (amended.state, amended.outcome, amended.rerender) == ("reviewed", "failure", True)
    # The notes spoke of the outcome they came with: they go with it.
    assert amended.fields == {"outcome": "failure", "outcome_notes": None}
    with pytest.raises(lifecycle.NotNow):
        act("decision", "recorded", {}, action="amend_outcome", outcome="failure")


def test_fact_becomes_core_after_three_confirmations() -> None:
    fields: dict[str, JsonValue] = {"confirmation_count": 0}
    state = "new"
    for _ in range(3):
        transition = act("fact", state, fields, action="confirm")
        state = transition.state
        fields.update(transition.fields)
    assert (state, fields["confirmation_count"]) == ("core", 3)


def test_procedure_is_judged_after_five_activations() -> None:
    fields: dict[str, JsonValue] = {}
    state = "active"
    for success in (True, True, True, True):
        transition = act("procedure", state, fields, action="record_activation", success=success)
        state = transition.state
        fields.update(transition.fields)
    assert state == "active"  # too few activations to judge
    transition = act("procedure", state, fields, action="record_activation", success=False)
    assert (transition.state, transition.fields["effectiveness"]) == ("effective", 0.8)


def test_failing_procedure_becomes_ineffective() -> None:
    fields: dict[str, JsonValue] = {"activation_count": 4, "success_count": 1}
    transition = act("procedure", "active", fields, action="record_activation", success=False)
    assert transition.state == "ineffective"


def test_procedure_activation_needs_its_result() -> None:
    with pytest.raises(lifecycle.Incomplete, match="success"):
        act("procedure", "active", {}, action="record_activation")


def test_censor_escalates_to_block_and_retires_on_false_positives() -> None:
    escalated = act("censor", "active", {"activation_count": 5}, action="record_activation")
    assert (escalated.state, escalated.fields["action"]) == ("escalated", "block")
    retired = act("censor", "active", {"false_positive_count": 2}, action="record_false_positive")
    assert retired.state == "retired"


def test_action_of_another_kind_is_named_with_the_allowed_ones() -> None:
    with pytest.raises(lifecycle.NotAnAction) as caught:
        act("decision", "recorded", {}, action="confirm")
    assert caught.value.allowed == ["mark_pending", "record_outcome"]


def test_episode_is_summarized_then_archived() -> None:
    assert act("episode", "active", {}, action="summarize").state == "summarized"
    assert act("episode", "summarized", {}, action="archive").state == "archived"
    with pytest.raises(lifecycle.NotNow):
        act("episode", "archived", {}, action="summarize")
