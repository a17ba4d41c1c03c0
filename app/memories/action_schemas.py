"""The body of `PATCH /memories/{memory_id}`: one lifecycle action (`lifecycle.py` says which a
memory takes in each state)."""

from typing import Annotated, Literal

from pydantic import Field

from app.core.fields import Id, LongText, RequestBody
from app.memories.schemas import Outcome


class _Action(RequestBody):
    """One lifecycle action on a memory."""


class RecordOutcome(_Action):
    """Decision: log the outcome; a final outcome moves it to reviewed."""

    action: Literal["record_outcome"]
    outcome: Outcome
    notes: LongText | None = None


class AmendOutcome(_Action):
    """Decision, once reviewed: correct its outcome. The notes replace the old ones (none when
    omitted); the lifecycle log keeps what it said before."""

    action: Literal["amend_outcome"]
    outcome: Outcome
    notes: LongText | None = None


class MarkPending(_Action):
    """Decision: the work is done and the outcome is awaited."""

    action: Literal["mark_pending"]


class Confirm(_Action):
    """Fact: seen again; three confirmations make it core."""

    action: Literal["confirm"]


class Supersede(_Action):
    """Fact: replaced by a newer fact of the same agent."""

    action: Literal["supersede"]
    superseded_by: Id


class Invalidate(_Action):
    """Fact: proven wrong; excluded from search."""

    action: Literal["invalidate"]


class RecordActivation(_Action):
    """Procedure: used once, with its result. Censor: triggered once."""

    action: Literal["record_activation"]
    success: bool | None = Field(default=None, description="Required for procedures.")


class RecordFalsePositive(_Action):
    """Censor: triggered when it should not have."""

    action: Literal["record_false_positive"]


class Summarize(_Action):
    """Episode: older; detail may be trimmed, the summary stays."""

    action: Literal["summarize"]


class Archive(_Action):
    """Episode: only summary and metadata matter now."""

    action: Literal["archive"]


class Retire(_Action):
    """Procedure or censor: no longer in use."""

    action: Literal["retire"]


MemoryUpdate = Annotated[
    RecordOutcome
    | AmendOutcome
    | MarkPending
    | Confirm
    | Supersede
    | Invalidate
    | RecordActivation
    | RecordFalsePositive
    | Summarize
    | Archive
    | Retire,
    Field(discriminator="action"),
]
