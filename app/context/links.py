"""The links step, associative recall: what belongs with a build's strongest hits comes along.

Similarity to the input cannot see that the decision to use pgvector belongs to the question
about caching in Newton; the Newton discussion that names both can. At write time each memory
keeps its anchors (`app.providers.anchors`: names and rare terms). Here, after the first
ranking, the anchors of the strongest admitted hits (and the input's own) spread to the memories
that hold them too (`link_sql.py`, one statement), tied as strongly as the hit times the
anchor's rarity. A tied memory not yet a candidate becomes one; every tied candidate carries its
`Link`, which ranking scores and the gate judges (`linked`) like any other signal.
"""

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from app.context.gate import Gate, admissions
from app.context.types import Candidate, Link, Scored
from app.core.config import LinkSettings


@dataclass(frozen=True)
class Seeds:
    """Where the spreading starts: the strongest admitted hits with their share of the best
    score, and the input's anchors."""

    hits: list[tuple[uuid.UUID, float]]
    input_anchors: list[str]

    def __bool__(self) -> bool:
        return bool(self.hits or self.input_anchors)


def seeds(
    ranked: Sequence[Scored], gate: Gate, input_anchors: Sequence[str], settings: LinkSettings
) -> Seeds:
    """The `settings.seeds` best candidates the gate admits, each as strong as its share of
    the best score."""
    if settings.seeds == 0:
        return Seeds([], [])
    admitted = [s for s, why in zip(ranked, admissions(ranked, gate), strict=True) if why]
    # By how near each is to the input in meaning: not by the frame's, recency's or
    # outcome's parts of its score, nor by a word it shares with the input.
    strength = sorted((s.components["semantic"], s.candidate.memory_id) for s in admitted)[::-1][
        : settings.seeds
    ]
    top = strength[0][0] if strength else 0.0
    hits = [(memory_id, value / top) for value, memory_id in strength if top > 0]
    return Seeds(hits, list(input_anchors))


def next_hop(
    found: Sequence[tuple[uuid.UUID, Link, Candidate | None]], settings: LinkSettings
) -> Seeds:
    """The seeds of the second hop: the memories the first tied in at least `min_link`,
    `hop_decay` as strong as their tie."""
    if settings.hops < 2:
        return Seeds([], [])
    hits = [
        (memory_id, link.strength * settings.hop_decay)
        for memory_id, link, _new in found
        if link.strength >= settings.min_link
    ]
    return Seeds(hits[: settings.seeds], [])


def attach(
    candidates: Sequence[Candidate], found: Sequence[tuple[uuid.UUID, Link, Candidate | None]]
) -> list[Candidate]:
    """The candidates, those tied to a seed with their link, and after them the tied memories
    that were not candidates (a memory's row comes with the first of its ties in `found`)."""
    by_id = {candidate.memory_id: candidate for candidate in candidates}
    added = []
    for memory_id, link, new in found:
        candidate = by_id.get(memory_id)
        if candidate is None and new is not None:
            candidate = by_id[memory_id] = new
            added.append(new)
        if candidate is not None and (candidate.link is None or link > candidate.link):
            candidate.link = link  # the strongest of its ties, whichever hop found it
    return [*candidates, *added]
