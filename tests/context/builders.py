"""Plain data for the tests of the pure steps (fill, render, trim): candidates, the fixed
content, a decision frame, ranked as the service ranks."""

import uuid
from datetime import UTC, datetime, timedelta

import numpy as np

from app.context.selection.ranking import rank
from app.context.text.render import FixedContent
from app.context.types import Candidate, Censor, FlexibleKind, Frame, Scored
from app.core.context_config import ContextSettings

NOW = datetime(2026, 11, 1, tzinfo=UTC)
SETTINGS = ContextSettings()
FRAME = Frame(
    name="decision",
    description="Architecture decision detected.",
    questions=("What are we optimizing for?", "What did we decide last time?"),
    priorities={"decision": 1.0, "procedure": 0.8, "fact": 0.6, "episode": 0.4},
    default_budget=12000,
)
KINDS: list[FlexibleKind] = ["decision", "fact", "procedure", "episode"]


def candidate(
    kind: FlexibleKind,
    summary: str,
    micro: str,
    semantic: float,
    age_days: float = 1.0,
    vector: list[float] | None = None,
) -> Candidate:
    return Candidate(
        memory_id=uuid.uuid4(),
        kind=kind,
        micro=micro,
        summary=summary,
        semantic=semantic,
        lexical=0.0,
        occurred_at=NOW - timedelta(days=age_days),
        embedding=None if vector is None else np.array(vector, dtype=np.float32),
    )


def ranked_by_settings(candidates: list[Candidate], word_reference: float = 0.0) -> list[Scored]:
    """Ranked as the service ranks them, with the weights of its settings."""
    return rank(
        candidates, FRAME, NOW, SETTINGS.weights, SETTINGS.half_life_days, None, word_reference
    )


def content(
    identity: str = "Newton agent. Analytical, cautious.",
    censors: tuple[Censor, ...] = (),
    working: str = "",
    calibration: str | None = None,
) -> FixedContent:
    return FixedContent(identity, censors, FRAME, working, calibration)
