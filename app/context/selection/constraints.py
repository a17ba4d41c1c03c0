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

from app.context.frames.choice import cue_matches
from app.context.types import Censor, Frame, Vector

CensorReason = Literal["trigger", "relevant", "few", "score"]


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


class CensorSet(tuple[Censor, ...]):
    """An agent's active censors, with what scoring them needs made once: the process's censor
    cache hands the same set to every build until one of them changes."""

    @functools.cached_property
    def _embedded(self) -> tuple[list[int], np.ndarray | None]:
        """The positions of the censors with a vector, and their vectors as one matrix."""
        present = [i for i, c in enumerate(self) if c.embedding is not None]
        vectors = [c.embedding for c in self if c.embedding is not None]
        return present, np.stack(vectors) if vectors else None

    @functools.cached_property
    def _frames(self) -> dict[tuple[str, ...], list[float]]:
        return {}

    def similarities(self, vector: Vector | None) -> list[float]:
        """Each censor's similarity to the input (0 without vectors), in one matrix product."""
        found = [0.0] * len(self)
        present, matrix = self._embedded
        if vector is None or matrix is None:
            return found
        for i, value in zip(present, (matrix @ vector).tolist(), strict=True):
            found[i] = max(value, 0.0)
        return found

    def about(self, cues: tuple[str, ...]) -> list[float]:
        """1 for each censor whose text holds one of a frame's cues, else 0."""
        flags = self._frames.get(cues)
        if flags is None:
            flags = self._frames[cues] = [
                1.0 if cue_matches(f"{c.pattern} {c.domain}", cues) else 0.0 for c in self
            ]
        return flags


def _words(censor: Censor, terms: frozenset[str]) -> float:
    return len(censor.terms & terms) / len(censor.terms) if censor.terms else 0.0


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
    censors = censors if isinstance(censors, CensorSet) else CensorSet(censors)
    parts = list(
        zip(
            censors.similarities(vector),
            [_words(c, terms) for c in censors],
            censors.about(frame.cues),
            strict=True,
        )
    )
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
        elif value >= bar:
            reason = "relevant"
        elif len(censors) <= rules.all_up_to:
            reason = "few"  # an agent with a handful of censors sees them all
        scored.append(ScoredCensor(censor, semantic, words, about_frame, round(value, 6), reason))
    first = max(  # the first most relevant, BLOCK before WARN
        range(len(scored)),
        key=lambda i: (scored[i].relevance, scored[i].censor.action == "block"),
        default=None,
    )
    if (
        first is not None
        and not any(s.chosen for s in scored)
        and (best := scored[first]).relevance >= rules.best_floor
    ):
        scored[first] = replace(best, reason="relevant")
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
