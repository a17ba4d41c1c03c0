"""The relevance gate: which candidates may take a place at all. Pure.

A candidate is judged against the build's other candidates, not against a fixed floor alone:
similarity means little on its own (a weak embedder puts the right memory at 0.15 when nothing
else comes close, and a dozen near-misses at 0.35 when the agent knows a lot about the topic).
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from app.context.types import Admission, Candidate, Scored


@dataclass(frozen=True)
class Gate:
    """What earns a candidate a place besides fitting."""

    # Never in by its meaning below this similarity.
    min_similarity: float = 0.2
    # In by its meaning when at least this share as similar as the build's most similar memory.
    similarity_share: float = 0.5
    # In by its words when it holds more than this share of the best word match.
    min_word_share: float = 0.5
    # In when it stands out this many standard deviations above the other candidates of its
    # kind (and is at least half `min_similarity` similar): the one decision that speaks to
    # the input among fifty that do not.
    standout_sigmas: float = 3.0
    # In when tied this strongly to a strong hit or the input by an anchor
    # (`retrieval/links.py`): the `max_linked` strongest ties of a build at most.
    min_link: float = 0.45
    max_linked: int = 3
    # In as the most similar of its kind (from `min_similarity`) only for these kinds, and only
    # when the frame calls for them (the kind's priority in it at least `best_of_kind_priority`:
    # a task, a debugging session, a decision). A procedure says how to act in a kind of
    # situation, in words far from any one input ("How to choose a storage, cache or runtime
    # component" against "Should we use Redis for caching in Newton?"); a fact, a decision or an
    # episode speaks of its own case and is in by its meaning or not at all. (On the typed
    # memory benchmark at 2,000 tokens the rule for every kind let in 31 memories, none of them
    # expected; this one lets in one of them. With all-mpnet-base-v2 as the second model the
    # rule for every kind found two expected ones, a decision and a fact: bench/README.md.)
    best_of_kinds: tuple[str, ...] = ("procedure",)
    best_of_kind_priority: float = 0.8


def admissions(ranked: Sequence[Scored], gate: Gate) -> list[Admission | None]:
    """For each candidate, why it may take a place (None: it may not): by meaning, by words, as
    the most similar procedure when the frame calls for procedures, standing out among its
    kind, as the neighbour of a strong hit, from the period the input names, or tied to a
    strong hit by an anchor; the first that holds."""
    _, floor = meaning_floor(ranked, gate)
    spread = _spread_by_kind(ranked)
    found = [_admission(scored, floor, spread[scored.candidate.kind], gate) for scored in ranked]
    linked = sorted(
        (i for i, why in enumerate(found) if why == "linked"),
        key=lambda i: -ranked[i].components["link"],
    )
    for i in linked[gate.max_linked :]:
        found[i] = None
    return found


def strongest(
    ranked: Sequence[Scored], admitted: Sequence[Admission | None], count: int
) -> list[Candidate]:
    """The build's strongest hits: the first `count` candidates the gate lets in (`admitted`:
    `admissions` of `ranked`), and the first of each kind it lets in."""
    found: list[Candidate] = []
    kinds: set[str] = set()
    for scored, why in zip(ranked, admitted, strict=True):
        kind = scored.candidate.kind
        if why and (len(found) < count or kind not in kinds):
            found.append(scored.candidate)
            kinds.add(kind)
    return found


@dataclass(frozen=True)
class GateBar:
    """The gate's bar in one build, for its manifest: the best similarity, the least that lets
    a candidate in by its meaning, the word share that lets it in by its words."""

    best_similarity: float
    similarity_floor: float
    min_word_share: float


def meaning_floor(ranked: Sequence[Scored], gate: Gate) -> tuple[float, float]:
    """The build's best similarity, and the least similarity that lets a candidate in by its
    meaning (a share of the best, never under `min_similarity`)."""
    best = max((s.components["semantic"] for s in ranked), default=0.0)
    return best, max(gate.min_similarity, best * gate.similarity_share)


def gate_bar(ranked: Sequence[Scored], gate: Gate) -> GateBar:
    """The gate's bar over `ranked`, rounded for the manifest."""
    best, floor = meaning_floor(ranked, gate)
    return GateBar(round(best, 4), round(floor, 4), gate.min_word_share)


def _admission(
    scored: Scored, floor: float, spread: tuple[float, float, float], gate: Gate
) -> Admission | None:
    parts = scored.components
    semantic = parts["semantic"]
    mean, deviation, kind_best = spread
    if semantic >= floor:
        return "meaning"
    if parts["lexical"] > gate.min_word_share:
        return "words"
    if semantic >= gate.min_similarity and semantic >= kind_best and _called_for(scored, gate):
        return "kind_best"
    if (
        deviation > 0
        and semantic >= gate.min_similarity / 2
        and (semantic - mean) / deviation >= gate.standout_sigmas
    ):
        return "standout"
    if parts["adjacency"] > 0:
        return "neighbour"
    if parts["period"] > 0:
        return "period"
    if parts.get("link", 0.0) >= gate.min_link:
        return "linked"
    return None


def _called_for(scored: Scored, gate: Gate) -> bool:
    """Whether the most similar memory of this one's kind may come in as such: a kind the
    frame calls for (`components["frame"]`: its priority in the build's frame)."""
    return (
        scored.candidate.kind in gate.best_of_kinds
        and scored.components["frame"] >= gate.best_of_kind_priority
    )


def _spread_by_kind(ranked: Sequence[Scored]) -> dict[str, tuple[float, float, float]]:
    """Mean, standard deviation and best of the candidates' similarity, by kind."""
    by_kind: dict[str, list[float]] = {}
    for scored in ranked:
        by_kind.setdefault(scored.candidate.kind, []).append(scored.components["semantic"])
    spread: dict[str, tuple[float, float, float]] = {}
    for kind, values in by_kind.items():
        array = np.array(values)  # in floats: statistics' exact fractions cost a build 0.5 ms
        deviation = float(array.std())  # ties give 1e-17, not 0: then no one stands out
        spread[kind] = (float(array.mean()), deviation if deviation > 1e-9 else 0.0, max(values))
    return spread
