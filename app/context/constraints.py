"""Which active censors a context shows: those whose trigger the input matches, then those that
stand out from the agent's other censors by meaning, words and the frame. Pure.

Every censor of the agent is scored, so "stands out" is judged against the agent's own censors:
a censor is in when its relevance is at least `CensorRules.standout` standard deviations above
their mean and at least `CensorRules.floor`; when none is, the most relevant one is in from
`CensorRules.best_floor` (a rule that may apply costs a line; missing it costs more); an agent
with only a handful sees them all; BLOCK goes before WARN among equals. The layer's cap (in the
render step) decides how many fit.
"""

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from app.context.frames import cue_matches
from app.context.types import Censor, Frame, Vector

CensorReason = Literal["trigger", "relevant", "score"]


@dataclass(frozen=True)
class CensorRules:
    """What makes a censor relevant to an input."""

    standout: float = 1.5  # standard deviations above the mean of the agent's censors
    floor: float = 0.25  # least relevance of a censor the trigger words do not match
    best_floor: float = 0.15  # least relevance of the agent's most relevant censor
    words: float = 0.3  # weight of the share of its trigger words the input holds
    frame: float = 0.15  # bonus when it speaks of what the frame is about (its cues)
    # An agent with this few censors sees them all: a handful of rules costs little, and there
    # are too few to tell which stand out.
    all_up_to: int = 3


@dataclass(frozen=True)
class ScoredCensor:
    """A censor, how relevant it is to the input, and whether and why it is shown."""

    censor: Censor
    semantic: float
    words: float
    frame: float
    relevance: float
    reason: CensorReason

    @property
    def chosen(self) -> bool:
        return self.reason != "score"


def _trigger_matched(censor: Censor, terms: frozenset[str]) -> bool:
    """The input holds its trigger: every one of its words, or two or more and half of them."""
    matched = len(censor.terms & terms)
    return bool(censor.terms) and (
        matched == len(censor.terms) or (matched >= 2 and 2 * matched >= len(censor.terms))
    )


def _similarities(censors: Sequence[Censor], vector: Vector | None) -> list[float]:
    """Each censor's similarity to the input (0 without vectors), in one matrix product."""
    found = [0.0] * len(censors)
    present = [(i, c.embedding) for i, c in enumerate(censors) if c.embedding is not None]
    if vector is None or not present:
        return found
    products = np.stack([e for _i, e in present]) @ vector
    for (i, _e), value in zip(present, products.tolist(), strict=True):
        found[i] = max(value, 0.0)
    return found


def _score(
    censor: Censor, semantic: float, terms: frozenset[str], frame: Frame
) -> tuple[float, float, float]:
    words = len(censor.terms & terms) / len(censor.terms) if censor.terms else 0.0
    about_frame = 1.0 if _about(f"{censor.pattern} {censor.domain}", frame.cues) else 0.0
    return semantic, words, about_frame


@functools.lru_cache(maxsize=65_536)
def _about(text: str, cues: tuple[str, ...]) -> bool:
    """Whether a censor's text holds one of a frame's cues: the same few hundred censors are
    tested against the same frames in build after build."""
    return bool(cue_matches(text, cues))


def choose_censors(
    censors: Sequence[Censor],
    vector: Vector | None,
    terms: frozenset[str],
    frame: Frame,
    rules: CensorRules = CensorRules(),
) -> list[ScoredCensor]:
    """Every censor scored, the chosen first (trigger matches, then by relevance, BLOCK before
    WARN among equals), then the rest by relevance; ties by their text, so the same data gives
    the same order."""
    similarities = _similarities(censors, vector)
    parts = [_score(c, s, terms, frame) for c, s in zip(censors, similarities, strict=True)]
    relevance = [s + rules.words * w + rules.frame * f for s, w, f in parts]
    mean = sum(relevance) / len(relevance) if relevance else 0.0
    spread = math.sqrt(sum((r - mean) ** 2 for r in relevance) / len(relevance)) if relevance else 0
    bar = max(rules.floor, mean + rules.standout * spread)
    scored = []
    for censor, (semantic, words, about_frame), value in zip(
        censors, parts, relevance, strict=True
    ):
        reason: CensorReason = "score"
        if _trigger_matched(censor, terms):
            reason = "trigger"
        elif value >= bar or len(censors) <= rules.all_up_to:
            reason = "relevant"
        scored.append(ScoredCensor(censor, semantic, words, about_frame, round(value, 6), reason))
    best = max(scored, key=lambda s: (s.relevance, s.censor.action == "block"), default=None)
    if best and not any(s.chosen for s in scored) and best.relevance >= rules.best_floor:
        scored[scored.index(best)] = replace(best, reason="relevant")
    scored.sort(
        key=lambda s: (
            s.reason != "trigger",
            not s.chosen,
            -round(s.relevance, 2),
            s.censor.action != "block",
            s.censor.pattern,
        )
    )
    return scored
