"""The calibration note: how well an agent's stated confidence matched its reviewed outcomes."""

from collections.abc import Sequence

from app.context.types import Calibration

MIN_REVIEWED = 3
OUTCOME_VALUES = {"success": 1.0, "partial": 0.5, "failure": 0.0}
WELL_CALIBRATED = 0.05  # |bias| up to this is noise at the sample sizes agents have
SLIGHTLY = 0.15


def calibrate(reviewed: Sequence[tuple[float, str]]) -> Calibration | None:
    """Accuracy, Brier score and bias of (confidence, outcome) pairs; None below 3 outcomes."""
    pairs = [
        (confidence, OUTCOME_VALUES[outcome])
        for confidence, outcome in reviewed
        if outcome in OUTCOME_VALUES
    ]
    if len(pairs) < MIN_REVIEWED:
        return None
    count = len(pairs)
    accuracy = sum(value for _, value in pairs) / count
    brier = sum((confidence - value) ** 2 for confidence, value in pairs) / count
    bias = sum(confidence for confidence, _ in pairs) / count - accuracy
    note = f"Recent accuracy: {accuracy:.0%}. Brier: {brier:.3f}. {advice(bias)}"
    return Calibration(
        reviewed=count,
        accuracy=round(accuracy, 4),
        brier=round(brier, 4),
        bias=round(bias, 4),
        note=note,
    )


def advice(bias: float) -> str:
    """One line of advice for a bias (mean confidence minus accuracy)."""
    if abs(bias) <= WELL_CALIBRATED:
        return "Well calibrated — your confidence matches your results."
    if bias > SLIGHTLY:
        return "Overconfident — check your assumptions before acting."
    if bias < -SLIGHTLY:
        return "Underconfident — trust your analysis more."
    if bias > 0:
        return "Slightly overconfident — double-check before committing."
    return "Slightly underconfident — trust your analysis."
