"""The budget plan: where the total comes from, and how much a short input needs."""

from app.context.selection.budget import complexity, fixed_cap, flexible_shares, plan_budget


def test_total_is_request_else_frame_else_agent() -> None:
    assert plan_budget(900, 6000, 5000, 8000, "hi").total == 900
    assert plan_budget(None, 6000, 5000, 8000, "hi").source == "frame"
    assert plan_budget(None, None, 5000, 8000, "hi").total == 5000
    assert plan_budget(None, None, None, 8000, "hi").total == 8000


def test_short_input_needs_less_of_a_default_budget_but_not_of_a_named_one() -> None:
    short, long = "When is the release?", " ".join(["word"] * 80) + "? And why? Also how?"
    assert complexity(short) < complexity(long) <= 1.0
    assert complexity(short) >= 0.5
    assert plan_budget(None, 6000, None, 8000, short).flexible_scale == complexity(short)
    assert plan_budget(2000, 6000, None, 8000, short).flexible_scale == 1.0


def test_fixed_caps_and_flexible_shares() -> None:
    assert fixed_cap("identity", 8000) == 500
    assert fixed_cap("identity", 300) == 300
    assert fixed_cap("frame", 1000) == round(500 * 1000 / 8000)
    shares = flexible_shares(6000, {"decision": 1.0, "procedure": 0.8, "fact": 0.6, "episode": 0.4})
    assert shares["decision"] > shares["procedure"] > shares["fact"] > shares["episode"]
    assert sum(shares.values()) <= 6000
