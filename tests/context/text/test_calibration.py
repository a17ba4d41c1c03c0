"""The calibration note from reviewed decisions."""

import pytest

from app.context.text.calibration import calibrate


def test_numbers_of_a_small_set() -> None:
    calibration = calibrate(
        [(0.9, "success"), (0.8, "failure"), (0.6, "partial"), (0.7, "pending")]
    )

    assert calibration is not None
    assert calibration.reviewed == 3  # pending is not an outcome yet
    assert calibration.accuracy == pytest.approx(0.5)
    assert calibration.brier == pytest.approx((0.01 + 0.64 + 0.01) / 3, abs=1e-4)
    assert calibration.bias == pytest.approx(2.3 / 3 - 0.5, abs=1e-4)
    assert calibration.note == (
        "Recent accuracy: 50%. Brier: 0.220. Overconfident — check your assumptions before acting."
    )


@pytest.mark.parametrize(
    ("reviewed", "advice"),
    [
        ([(0.8, "success")] * 4 + [(0.8, "failure")], "Well calibrated"),
        ([(0.6, "success"), (0.6, "failure"), (0.6, "partial")], "Slightly overconfident"),
        ([(0.9, "success")] * 3, "Slightly underconfident — trust your analysis."),
        ([(0.3, "success")] * 3, "Underconfident — trust your analysis more."),
        ([(0.9, "failure")] * 3, "Overconfident — check your assumptions"),
    ],
)
def test_advice_follows_bias(reviewed: list[tuple[float, str]], advice: str) -> None:
    calibration = calibrate(reviewed)

    assert calibration is not None
    assert calibration.note.split(". ", 2)[2].startswith(advice)


def test_seed_example_wording() -> None:
    calibration = calibrate([(0.9, "success")] * 3)

    assert calibration is not None
    assert calibration.note == (
        "Recent accuracy: 100%. Brier: 0.010. Slightly underconfident — trust your analysis."
    )


def test_none_below_three_outcomes() -> None:
    assert calibrate([]) is None
    assert calibrate([(0.9, "success"), (0.5, "failure")]) is None
    assert calibrate([(0.9, "success"), (0.5, "failure"), (0.7, "pending")]) is None
