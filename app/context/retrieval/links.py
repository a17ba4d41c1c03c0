"""The links step, associative recall: what belongs with a build's strongest hits comes along.

Similarity to the input cannot see that the decision to use pgvector belongs to the question
about caching in Newton; the Newton discussion that names both can. At write time each memory
keeps its anchors (`app.providers.anchors`: names and rare terms). Here, after the first
ranking, the anchors of the admitted hits nearest the input (and the input's own) spread to the
memories that hold them too (`link_sql.py`, one statement a hop), and from what that tied in
once more; how strongly an anchor ties says `link_sql.py`. A tied memory not yet a candidate
becomes one; every tied candidate carries its `Link`, which ranking scores and the gate judges
(`linked`, the strongest few) like any other signal.
"""

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from app.context.retrieval.search import SearchRepository
from app.context.retrieval.search_sql import SearchSpec
from app.context.selection.fill import Rules
from app.context.selection.gate import Gate, admissions
from app.context.types import Candidate, Link, Scored, Seeds, Vector
from app.core.context_config import ContextSettings, LinkSettings


def seeds(
    ranked: Sequence[Scored], gate: Gate, input_anchors: Sequence[str], settings: LinkSettings
) -> Seeds:
    """The `settings.seeds` candidates nearest the input that the gate admits, each as strong
    as its share of the best similarity, and the input's anchors."""
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
    chosen = {memory_id for memory_id, _strength in hits}
    held = {a for s in admitted if s.candidate.memory_id in chosen for a in s.candidate.anchors}
    return Seeds(hits, list(input_anchors), frozenset(held | set(input_anchors)))


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
    return Seeds(hits[: settings.seeds], [])  # their anchors are read by the statement


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
        if candidate is not None and (
            candidate.link is None or link.strength > candidate.link.strength
        ):
            candidate.link = link  # the strongest of its ties, whichever hop found it
    return [*candidates, *added]


async def spread(
    search: SearchRepository,
    spec: SearchSpec,
    start: Seeds,
    known: Sequence[uuid.UUID],
    vector: Vector | None,
    settings: LinkSettings,
    rescore: Vector | None = None,
) -> list[tuple[uuid.UUID, Link, Candidate | None]]:
    """The ties of `start` (one hop, then a second from the memories it tied in), each memory
    with its link and, when not among the `known` candidates, as a new candidate."""
    found = await search.linked(spec, start, known, vector, settings, rescore)
    if second := next_hop(found, settings):
        more = [*known, *(memory_id for memory_id, _link, new in found if new is not None)]
        found += await search.linked(spec, second, more, vector, settings, rescore)
    return found


@dataclass(frozen=True)
class Inputs:
    """What the spreading needs of a build: its search, the input's anchors and vectors."""

    spec: SearchSpec
    anchors: list[str]
    vector: Vector | None
    rescore: Vector | None = None


async def with_ties(
    search: SearchRepository,
    settings: ContextSettings,
    ranked: list[Scored],
    build: Inputs,
    rank: Callable[[list[Candidate]], list[Scored]],
) -> list[Scored]:
    """The candidates ranked again (`rank`) with the ties of the hits nearest the input and
    the memories they tie in; as they were when nothing is tied."""
    start = seeds(ranked, Rules.of(settings).gate, build.anchors, settings.links)
    known = [scored.candidate.memory_id for scored in ranked]
    found = await spread(
        search, build.spec, start, known, build.vector, settings.links, build.rescore
    )
    if not found:
        return ranked
    return rank(attach([scored.candidate for scored in ranked], found))
