"""Which active censors a context shows: those whose trigger the input matches, then those that
stand out from the agent's other censors by meaning, words, the frame and the hits. Pure.

A rule applies to the situation as well as to the words of the input: "Should we use Redis?"
names no infrastructure, but the procedure it brings up says to evaluate an addition's
operational cost, as the rule does. So a censor's relevance counts how much of what it speaks
of one of the build's strongest hits speaks of too (its content words, weighed by their rarity
among the agent's censors, two of them at least).

Every censor of the agent is scored, so "stands out" is judged against the agent's own censors:
a censor is in when its relevance is at least `CensorRules.standout` standard deviations above
their mean and at least `CensorRules.floor`; when none is, the most relevant one is in from
`CensorRules.best_floor` (a rule that may apply costs a line; missing it costs more); an agent
with only a handful sees them all; BLOCK goes before WARN among equals. The layer's cap (in the
render step) decides how many fit.
"""

import functools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

import numpy as np

from app.context.frames.choice import cue_matches
from app.context.premises.words import content_stems
from app.context.types import Candidate, Censor, Frame, Vector

CensorReason = Literal["trigger", "relevant", "few", "score"]


@dataclass(frozen=True)
class CensorRules:
    """What makes a censor relevant to an input."""

    standout: float = 1.75  # standard deviations above the mean of the agent's censors
    floor: float = 0.25  # least relevance of a censor the trigger words do not match
    best_floor: float = 0.15  # least relevance of the agent's most relevant censor
    words: float = 0.3  # weight of the share of its trigger words the input holds
    frame: float = 0.15  # bonus when it speaks of what the frame is about (its cues)
    hits: float = 0.2  # weight of the share of its words one of the strongest hits holds
    # The build's strongest hits read for that: the first this many the gate lets in, and
    # the first of each kind (a procedure speaks of what rules speak of, but ranks lower).
    hits_read: int = 5
    # An agent with this few censors sees them all: a handful of rules costs little, and there
    # are too few to tell which stand out.
    all_up_to: int = 3


class ScoredCensor(NamedTuple):
    """A censor, how relevant it is to the input, and whether and why it is shown (a tuple: a
    build scores every censor of its agent, a couple of hundred at 10,000 memories)."""

    censor: Censor
    semantic: float
    words: float
    frame: float
    hits: float
    relevance: float
    reason: CensorReason

    @property
    def chosen(self) -> bool:
        return self.reason != "score"


class CensorSet(tuple[Censor, ...]):
    """An agent's active censors, with what scoring them needs made once: the process's censor
    cache hands the same set to every build until one of them changes."""

    @functools.cached_property
    def _embedded(self) -> tuple[np.ndarray, np.ndarray | None]:
        """The positions of the censors with a vector, and their vectors as one matrix."""
        present = [i for i, c in enumerate(self) if c.embedding is not None]
        vectors = [c.embedding for c in self if c.embedding is not None]
        return np.array(present, dtype=np.intp), np.stack(vectors) if vectors else None

    @functools.cached_property
    def _terms(self) -> tuple[dict[str, list[int]], np.ndarray]:
        """Which censors hold each word, and how many words each holds."""
        holders = _holders(censor.terms for censor in self)
        return holders, np.array([len(c.terms) for c in self], dtype=np.int64)

    @functools.cached_property
    def order_keys(self) -> tuple[np.ndarray, np.ndarray]:
        """For the order of a build's censors: WARN after BLOCK, and each pattern's place among
        the patterns (equal patterns share it)."""
        patterns = sorted({c.pattern for c in self})
        place = {pattern: i for i, pattern in enumerate(patterns)}
        warn = np.array([c.action != "block" for c in self], dtype=np.bool_)
        return warn, np.array([place[c.pattern] for c in self], dtype=np.int64)

    @functools.cached_property
    def _frames(self) -> dict[tuple[str, ...], np.ndarray]:
        return {}

    def similarities(self, vector: Vector | None) -> np.ndarray:
        """Each censor's similarity to the input, never below 0 (0 without vectors), in one
        matrix product."""
        found = np.zeros(len(self), dtype=np.float64)
        present, matrix = self._embedded
        if vector is not None and matrix is not None:
            found[present] = np.maximum(matrix @ vector, 0.0)
        return found

    def matched(self, terms: frozenset[str]) -> tuple[np.ndarray, np.ndarray]:
        """How many of each censor's words the input holds, and how many it holds in all."""
        holders, counts = self._terms
        matched = np.zeros(len(self), dtype=np.int64)
        for term in terms:
            if (held := holders.get(term)) is not None:
                matched[held] += 1
        return matched, counts

    @functools.cached_property
    def _content(self) -> tuple[dict[str, slice], np.ndarray, np.ndarray, np.ndarray]:
        """The censors' content words (their triggers' and domains'), listed word by word: where
        each word's holders are in the list, the holders (censor positions), each one's weight
        of the word (its rarity among the censors), and each censor's weight of all its words.
        A few entries a censor: the process keeps this for every agent it builds for."""
        holders = _holders(content_stems(f"{c.pattern} {c.domain}") for c in self)
        where: dict[str, slice] = {}
        listed: list[int] = []
        weights: list[float] = []
        for stem, held in holders.items():
            where[stem] = slice(len(listed), len(listed) + len(held))
            listed += held
            weights += [math.log(1 + len(self) / len(held))] * len(held)
        positions, weight = np.array(listed, dtype=np.intp), np.array(weights, dtype=np.float64)
        return where, positions, weight, np.bincount(positions, weight, minlength=len(self))

    def spoken_of(self, hits: Sequence[frozenset[str]]) -> np.ndarray:
        """For each censor, the largest share of its words (by weight) that one hit holds, two
        of them at least; 0 when no hit does."""
        where, positions, weight, totals = self._content
        shared = np.zeros(len(self), dtype=np.float64)
        for hit in hits:
            spans = [where[stem] for stem in hit if stem in where]
            if len(spans) < 2:
                continue
            entries = np.concatenate([np.arange(span.start, span.stop) for span in spans])
            held = positions[entries]
            count = np.bincount(held, minlength=len(self))
            summed = np.bincount(held, weight[entries], minlength=len(self))
            np.maximum(shared, np.where(count >= 2, summed, 0.0), out=shared)
        found = np.zeros(len(self), dtype=np.float64)
        np.divide(shared, totals, out=found, where=totals > 0)
        return found

    def about(self, cues: tuple[str, ...]) -> np.ndarray:
        """1 for each censor whose text holds one of a frame's cues, else 0."""
        flags = self._frames.get(cues)
        if flags is None:
            flags = self._frames[cues] = np.array(
                [1.0 if cue_matches(f"{c.pattern} {c.domain}", cues) else 0.0 for c in self]
            )
        return flags


def choose_censors(
    censors: Sequence[Censor],
    vector: Vector | None,
    terms: frozenset[str],
    frame: Frame,
    rules: CensorRules = CensorRules(),
    hits: Sequence[Candidate] = (),
) -> list[ScoredCensor]:
    """Every censor scored, the chosen first (trigger matches, then by relevance, BLOCK before
    WARN among equals), then the rest by relevance; ties by their text, so the same data gives
    the same order. The scores are whole arrays, one step for all the agent's censors. `hits`:
    the build's strongest memories."""
    censors = censors if isinstance(censors, CensorSet) else CensorSet(censors)
    if not censors:
        return []
    semantic = censors.similarities(vector)
    matched, counts = censors.matched(terms)
    words = np.divide(matched, counts, out=np.zeros(len(censors)), where=counts > 0)
    about = censors.about(frame.cues)
    spoken = censors.spoken_of([_stems_of(hit) for hit in hits])
    relevance = semantic + rules.words * words + rules.frame * about + rules.hits * spoken
    # The mean, the spread and the roundings in Python, as before the arrays: numpy sums
    # pairwise and rounds otherwise, and a last bit may move a censor across the bar.
    values = relevance.tolist()
    mean = sum(values) / len(values)
    spread = math.sqrt(sum((r - mean) ** 2 for r in values) / len(values))
    bar = max(rules.floor, mean + rules.standout * spread)
    # The input holds a trigger: every one of its words, or two or more and half of them.
    trigger = (counts > 0) & ((matched == counts) | ((matched >= 2) & (2 * matched >= counts)))
    reasons = np.where(trigger, "trigger", np.where(relevance >= bar, "relevant", "score"))
    if len(censors) <= rules.all_up_to:
        reasons = np.where(reasons == "score", "few", reasons)  # a handful: all are seen
    rounded = [round(value, 6) for value in values]
    warn, place = censors.order_keys
    if not (reasons != "score").any():  # the first most relevant, BLOCK before WARN
        best = max(range(len(rounded)), key=lambda i: (rounded[i], not warn[i]))
        if rounded[best] >= rules.best_floor:
            reasons[best] = "relevant"
    shown = reasons != "score"
    key = np.array([-round(value, 2) for value in rounded])
    order = np.lexsort((place, warn, key, ~shown, reasons != "trigger"))
    parts = zip(semantic.tolist(), words.tolist(), about.tolist(), spoken.tolist(), strict=True)
    scored = [
        ScoredCensor(censor, *part, value, why)
        for censor, part, value, why in zip(censors, parts, rounded, reasons.tolist(), strict=True)
    ]
    return [scored[i] for i in order.tolist()]


def _holders(words_of: Iterable[Iterable[str]]) -> dict[str, list[int]]:
    """Which censors (their positions) hold each word."""
    holders: dict[str, list[int]] = {}
    for i, words in enumerate(words_of):
        for word in words:
            holders.setdefault(word, []).append(i)
    return holders


def _stems_of(hit: Candidate) -> frozenset[str]:
    return content_stems(f"{hit.title or ''} {hit.micro} {hit.summary}")
