"""State machines of each kind: which actions apply in which state, and what they change."""

import uuid
from dataclasses import dataclass, field

from pydantic import JsonValue

from app.memories.action_schemas import (
    AmendOutcome,
    Archive,
    Confirm,
    Invalidate,
    MarkPending,
    MemoryUpdate,
    RecordActivation,
    RecordFalsePositive,
    RecordOutcome,
    Retire,
    Summarize,
    Supersede,
)

INITIAL_STATE = {
    "decision": "recorded",
    "fact": "new",
    "procedure": "active",
    "episode": "active",
    "censor": "created",
}

# action -> states it may start from, per kind
ALLOWED: dict[str, dict[str, tuple[str, ...]]] = {
    "decision": {
        "mark_pending": ("recorded",),
        "record_outcome": ("recorded", "pending"),
        "amend_outcome": ("reviewed",),
    },
    "fact": {
        "confirm": ("new", "confirmed", "core"),
        "supersede": ("new", "confirmed", "core"),
        "invalidate": ("new", "confirmed", "core", "superseded"),
    },
    "procedure": {
        "record_activation": ("active", "effective", "ineffective"),
        "retire": ("active", "effective", "ineffective"),
    },
    "episode": {
        "summarize": ("active",),
        "archive": ("active", "summarized"),
    },
    "censor": {
        "record_activation": ("created", "active", "escalated"),
        "record_false_positive": ("created", "active", "escalated"),
        "retire": ("created", "active", "escalated"),
    },
}

# States a memory is left out of a context's search in: a fact proven wrong or replaced by a
# newer one (it stays readable and listed), a retired procedure, and a memory retention forgot
# (`app.retention`: deactivated, not erased; restoring it brings it back).
UNSEARCHABLE: dict[str, tuple[str, ...]] = {
    "fact": ("inactive", "superseded", "forgotten"),
    "procedure": ("retired", "forgotten"),
    "episode": ("forgotten",),
}
# States of a fact that a repetition confirms.
CONFIRMABLE = ALLOWED["fact"]["confirm"]
# States in which a censor is in force (those it can still be retired from).
ACTIVE_CENSOR = ALLOWED["censor"]["retire"]
# The state of a decision whose outcome is known (it feeds the calibration note).
REVIEWED_DECISION = "reviewed"


def initial_state(kind: str, outcome: str | None = None) -> str:
    """A memory's first state; a decision written with its final outcome is reviewed at once
    (it counts in the calibration note), as if the outcome had been recorded later."""
    if kind == "decision" and outcome not in (None, "pending"):
        return REVIEWED_DECISION
    return INITIAL_STATE[kind]


CORE_AFTER_CONFIRMATIONS = 3
PROCEDURE_MIN_ACTIVATIONS = 5
CENSOR_ESCALATE_AFTER = 5
CENSOR_RETIRE_AFTER_FALSE_POSITIVES = 3


class NotAnAction(Exception):
    """The action does not exist for this kind."""

    def __init__(self, kind: str, state: str, action: str) -> None:
        super().__init__(f"'{action}' is not an action for a {kind}")
        self.allowed = allowed_actions(kind, state)


class NotNow(Exception):
    """The action exists for this kind but not in the memory's current state."""

    def __init__(self, kind: str, state: str, action: str) -> None:
        super().__init__(f"a {kind} in state '{state}' cannot '{action}'")
        self.allowed = allowed_actions(kind, state)


class Incomplete(Exception):
    """The action needs a field for this kind that the request left out."""

    def __init__(self, kind: str, state: str, message: str) -> None:
        super().__init__(message)
        self.allowed = allowed_actions(kind, state)


@dataclass
class Transition:
    """The outcome of an action: new state and the fields and columns it changes."""

    state: str
    fields: dict[str, JsonValue] = field(default_factory=dict)
    outcome: str | None = None
    superseded_by: uuid.UUID | None = None
    rerender: bool = False


def allowed_actions(kind: str, state: str) -> list[str]:
    """The actions a memory of `kind` accepts in `state`."""
    return sorted(a for a, states in ALLOWED[kind].items() if state in states)


def _count(fields: dict[str, JsonValue], key: str) -> int:
    value = fields.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def apply(kind: str, state: str, fields: dict[str, JsonValue], update: MemoryUpdate) -> Transition:
    """Apply one action; raises NotAnAction or NotNow when it makes no sense."""
    action = update.action
    if action not in ALLOWED[kind]:
        raise NotAnAction(kind, state, action)
    if state not in ALLOWED[kind][action]:
        raise NotNow(kind, state, action)

    match update:
        case MarkPending():
            return Transition("pending")
        case RecordOutcome(outcome=outcome, notes=notes):
            changes: dict[str, JsonValue] = {"outcome": outcome}
            if notes is not None:
                changes["outcome_notes"] = notes
            new_state = "pending" if outcome == "pending" else REVIEWED_DECISION
            return Transition(new_state, changes, outcome=outcome, rerender=True)
        case AmendOutcome(outcome=outcome, notes=notes):
            # The old notes spoke of the old outcome: they go with it (the log keeps both).
            changes = {"outcome": outcome, "outcome_notes": notes}
            new_state = "pending" if outcome == "pending" else REVIEWED_DECISION
            return Transition(new_state, changes, outcome=outcome, rerender=True)
        case Confirm():
            confirmations = _count(fields, "confirmation_count") + 1
            promoted = confirmations >= CORE_AFTER_CONFIRMATIONS or state == "core"
            return Transition(
                "core" if promoted else "confirmed", {"confirmation_count": confirmations}
            )
        case Supersede(superseded_by=newer):
            return Transition("superseded", superseded_by=newer)
        case Invalidate():
            return Transition("inactive")
        case RecordActivation(success=None) if kind == "procedure":
            raise Incomplete(
                kind, state, "a procedure's activation needs `success` (true or false)"
            )
        case RecordActivation(success=bool(success)) if kind == "procedure":
            return _procedure_activation(fields, success)
        case RecordActivation():
            activations = _count(fields, "activation_count") + 1
            changes = {"activation_count": activations}
            if activations > CENSOR_ESCALATE_AFTER and state != "escalated":
                changes["action"] = "block"
                return Transition("escalated", changes, rerender=True)
            return Transition("active" if state == "created" else state, changes)
        case RecordFalsePositive():
            false_positives = _count(fields, "false_positive_count") + 1
            retired = false_positives >= CENSOR_RETIRE_AFTER_FALSE_POSITIVES
            return Transition(
                "retired" if retired else state, {"false_positive_count": false_positives}
            )
        case Summarize():
            return Transition("summarized")
        case Archive():
            return Transition("archived")
        case Retire():
            return Transition("retired")
    raise NotAnAction(kind, state, action)  # pragma: no cover - the match covers every action


def _procedure_activation(fields: dict[str, JsonValue], success: bool) -> Transition:
    activations = _count(fields, "activation_count") + 1
    successes = _count(fields, "success_count") + int(success)
    effectiveness = successes / activations
    state = "active"
    if activations >= PROCEDURE_MIN_ACTIVATIONS:
        if effectiveness > 0.6:
            state = "effective"
        elif effectiveness < 0.4:
            state = "ineffective"
    changes: dict[str, JsonValue] = {
        "activation_count": activations,
        "success_count": successes,
        "effectiveness": round(effectiveness, 4),
    }
    return Transition(state, changes)


def outcome_changes(
    before: dict[str, JsonValue], after: dict[str, JsonValue]
) -> dict[str, JsonValue] | None:
    """A decision's outcome and notes before and after an outcome action, for its log."""
    if "outcome" not in after:
        return None
    return {
        key: {"from": before.get(key), "to": after.get(key, before.get(key))}
        for key in ("outcome", "outcome_notes")
    }
