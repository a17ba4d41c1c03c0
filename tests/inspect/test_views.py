"""What the build page draws, from a build alone: bars' widths, layers over their share."""

import uuid
from datetime import UTC, datetime

from app.context.schemas import ContextBuildResponse
from app.inspect.views import build_page, memory_ids, percent

PARTS = dict.fromkeys(
    ("semantic", "lexical", "frame", "recency", "outcome", "usage", "confidence", "adjacency"), 0.5
)


def _build(loaded: uuid.UUID, left: uuid.UUID) -> ContextBuildResponse:
    item = {
        "memory_id": str(loaded),
        "kind": "fact",
        "detail": "summary",
        "tokens": 30,
        "score": 0.9,
        "components": PARTS,
        "reason": "meaning",
    }
    return ContextBuildResponse.model_validate(
        {
            "context_id": str(uuid.uuid4()),
            "agent_id": "newton",
            "context": "## Known Information\n- a fact",
            "frame": {
                "name": "decision",
                "confidence": 0.9,
                "source": "selected",
                "scores": {"decision": 0.4, "debug": 0.1},
            },
            "layers": [
                {"name": "facts", "budget": 20, "used": 30, "items": [item]},
                {"name": "episodes", "budget": 0, "used": 0, "items": []},
            ],
            "left_out": [
                {"memory_id": str(left), "kind": "fact", "reason": "budget", "score": 0.3}
            ],
            "totals": {
                "budget": 100,
                "budget_source": "request",
                "used": 30,
                "utilization": 0.3,
                "encoding": "o200k_base",
                "candidates": 2,
            },
            "relevance": 0.5,
            "timings_ms": {"search": 2.0, "total": 8.0},
            "created_at": datetime(2026, 11, 23, tzinfo=UTC).isoformat(),
        }
    )


def test_percent_is_a_bar_width_within_its_track() -> None:
    assert percent(30, 120) == 25.0
    assert percent(300, 120) == 100.0
    assert percent(5, 0) == 0.0
    assert percent(-1, 10) == 0.0


def test_build_page_draws_each_layer_frame_and_timing() -> None:
    loaded, left = uuid.uuid4(), uuid.uuid4()
    build = _build(loaded, left)
    assert memory_ids(build) == [loaded, left]
    page = build_page(build, "Which cache?", {loaded: "a fact", left: "another"})
    facts, episodes = page.layers
    assert (facts.bar.width, facts.bar.over) == (100.0, True)
    assert (episodes.bar.width, episodes.bar.over) == (0.0, False)
    assert facts.items[0].text == "a fact"
    assert ("semantic", 0.5) in facts.items[0].parts
    assert ("period", 0.0) in facts.items[0].parts
    assert [(bar.label, bar.width) for bar in page.frame_bars] == [
        ("decision", 100.0),
        ("debug", 25.0),
    ]
    assert [(bar.label, bar.width) for bar in page.timing_bars] == [
        ("search", 25.0),
        ("total", 100.0),
    ]
    assert page.left_out[0].text == "another"
    assert page.budget_bar.width == 30.0


def test_a_memory_erased_since_the_build_still_has_a_line() -> None:
    loaded, left = uuid.uuid4(), uuid.uuid4()
    page = build_page(_build(loaded, left), "Which cache?", {})
    assert page.layers[0].items[0].text == "(erased)"
    assert page.left_out[0].text == ""
