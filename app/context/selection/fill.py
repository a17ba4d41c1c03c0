"""The fill step: the memories each layer holds, and at which detail. Pure.

Best first: the strongest fill `summary_share` of each layer at summary detail (a layer's best
memory whenever its summary fits), the next come as one-liners (micro), so a tight budget still
lists them; what a layer leaves goes to the best remaining candidates of any kind; tokens left
at the end turn the best one-liners back into summaries. A memory the relevance gate turns away
(`app.context.selection.gate`), or a near-duplicate of one already in, stays out.
"""

import uuid
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

import numpy as np

from app.context.selection.gate import Gate, admissions
from app.context.text.render import date_line, own_section, render_item, section_header
from app.context.types import (
    FLEXIBLE_KINDS,
    Admission,
    Detail,
    Excluded,
    FlexibleKind,
    Included,
    Scored,
    Vector,
)
from app.core.context_config import ContextSettings
from app.providers.tokenizer import Tokens

_MIN_ROOM = 4  # no item line is shorter: stop looking once less than this is left


@dataclass(frozen=True)
class Rules:
    """What earns a place besides fitting."""

    gate: Gate = field(default_factory=Gate)
    duplicate_similarity: float = 0.95
    # The share of a layer that the strongest memories fill at summary detail (its best memory
    # whenever the summary fits); past it, further memories are listed at micro detail (one line
    # each), and whatever is left at the end turns the best of those back into summaries.
    # 1.0: summary whenever it fits.
    summary_share: float = 0.5

    @classmethod
    def of(cls, settings: ContextSettings) -> "Rules":
        """The rules the settings name."""
        return cls(
            Gate(
                settings.min_similarity,
                settings.similarity_share,
                settings.min_word_share,
                settings.standout_sigmas,
                settings.links.min_link,
                settings.links.max_linked,
            ),
            settings.duplicate_similarity,
            settings.summary_share,
        )


DEFAULT_RULES = Rules()


@dataclass
class FlexibleLayers:
    """What the memory layers hold so far, with each rendered line counted once."""

    tokens: Tokens
    dimensions: int
    capacity: int
    chosen: dict[FlexibleKind, list[Included]] = field(
        default_factory=lambda: {kind: [] for kind in FLEXIBLE_KINDS}
    )
    used: dict[FlexibleKind, int] = field(default_factory=lambda: dict.fromkeys(FLEXIBLE_KINDS, 0))
    excluded: dict[str, Excluded] = field(default_factory=dict)
    admitted: dict[uuid.UUID, Admission] = field(default_factory=dict)  # why each may be in
    _lines: dict[tuple[uuid.UUID, Detail], tuple[str, int]] = field(default_factory=dict)
    _dates: dict[str, int] = field(default_factory=dict)
    days: set[str] = field(default_factory=set)  # the date lines the chosen episodes need
    _vectors: Vector | None = None
    _count: int = 0

    def included_ids(self) -> set[str]:
        return {str(i.scored.candidate.memory_id) for items in self.chosen.values() for i in items}

    def total_used(self) -> int:
        return sum(self.used.values())

    def line(self, scored: Scored, detail: Detail) -> tuple[str, int]:
        """The rendered item and its tokens, newline included."""
        key = (scored.candidate.memory_id, detail)
        if key not in self._lines:
            text = render_item(scored, detail)
            self._lines[key] = (text, self.tokens.count(text) + 1)
        return self._lines[key]

    def date_cost(self, day: str) -> int:
        """Tokens of a day's line, newline included."""
        if day not in self._dates:
            self._dates[day] = self.tokens.count(day) + 1
        return self._dates[day]

    def header_cost(self, scored: Scored, detail: Detail) -> int:
        """Tokens of the headings an item brings along: its section's (with the blank line
        before it) when it is the first of its list, and its day's line for an episode."""
        if own_section(scored, detail):
            return 1  # the blank line before its own section
        kind = scored.candidate.kind
        listed = any(not own_section(i.scored, i.detail) for i in self.chosen[kind])
        cost = 0 if listed else self.tokens.count(section_header(kind)) + 2
        if kind == "episode" and (day := date_line(scored)) not in self.days:
            cost += self.date_cost(day)
        return cost

    def is_duplicate(self, scored: Scored, threshold: float) -> bool:
        vector = scored.candidate.embedding
        if vector is None or self._vectors is None or self._count == 0:
            return False
        return bool((self._vectors[: self._count] @ vector).max() >= threshold)

    def add(self, included: Included, cost: int, *, vector: bool = True) -> None:
        candidate = included.scored.candidate
        self.chosen[candidate.kind].append(included)
        self.used[candidate.kind] += cost
        if candidate.kind == "episode":
            self.days.add(date_line(included.scored))
        if not vector:
            return
        if candidate.embedding is not None and candidate.embedding.shape == (self.dimensions,):
            if self._vectors is None:
                self._vectors = np.zeros((self.capacity, self.dimensions), dtype=np.float32)
            self._vectors[self._count] = candidate.embedding
            self._count += 1

    def remove(self, item: Included, reason: Excluded) -> None:
        """Take an item out again (the hard budget's last resort); the headings it alone
        needed go with it."""
        kind = item.scored.candidate.kind
        self.chosen[kind].remove(item)
        self.excluded[str(item.scored.candidate.memory_id)] = reason
        remaining, self.chosen[kind], self.used[kind] = self.chosen[kind], [], 0
        if kind == "episode":
            self.days = set()
        for kept in remaining:  # counted again as they were added, headings once
            self.add(kept, self.header_cost(kept.scored, kept.detail) + kept.tokens, vector=False)


def fullest(scored: Scored) -> Detail:
    """The most a memory shows: the passages of it around the input's words when its summary
    holds none of them, else its summary."""
    return "excerpt" if scored.candidate.excerpt else "summary"


def _fit(
    layers: FlexibleLayers, scored: Scored, room: int, summary_room: int
) -> tuple[Included, int] | None:
    """The item at summary detail within `summary_room`, else at micro within `room`, and its
    cost with the headers it brings along; None when it fits at neither."""
    kind = scored.candidate.kind
    if not layers.chosen[kind]:
        summary_room = room  # a layer's best memory has its summary whenever it fits
    details: tuple[Detail, ...] = (fullest(scored), "micro")
    for detail in details:
        line, cost = layers.line(scored, detail)
        header = layers.header_cost(scored, detail)
        if header + cost <= (summary_room if detail != "micro" else room):
            reason = layers.admitted.get(scored.candidate.memory_id, "meaning")
            return Included(scored, detail, cost, line, reason), header + cost
    return None


def _place(layers: FlexibleLayers, fit: tuple[Included, int] | None, rules: Rules) -> None:
    """Add a fitting item unless it repeats one already in (checked only for items that fit)."""
    if fit is None:
        return
    included, cost = fit
    if layers.is_duplicate(included.scored, rules.duplicate_similarity):
        key = str(included.scored.candidate.memory_id)
        layers.excluded[key] = Excluded(included.scored, "duplicate")
        return
    layers.add(included, cost)


def _upgrade(layers: FlexibleLayers, pool: int) -> None:
    """Give micro items their summary where the leftovers allow, best first."""
    upgrades = sorted(
        (item for items in layers.chosen.values() for item in items if item.detail == "micro"),
        key=lambda item: -item.scored.score,
    )
    for item in upgrades:
        detail = fullest(item.scored)
        line, cost = layers.line(item.scored, detail)
        kind = item.scored.candidate.kind
        if cost - item.tokens <= pool - layers.total_used():
            chosen = layers.chosen[kind]
            index = next(i for i, other in enumerate(chosen) if other is item)
            chosen[index] = Included(item.scored, detail, cost, line, item.reason)
            layers.used[kind] += cost - item.tokens


def fill(
    tokens: Tokens,
    ranked: Sequence[Scored],
    pool: int,
    shares: dict[FlexibleKind, int],
    rules: Rules,
    reserved: Collection[uuid.UUID] = frozenset(),
    admitted: Sequence[Admission | None] | None = None,
) -> FlexibleLayers:
    """Fill the memory layers from the ranked candidates within `pool` tokens; the `reserved`
    ones are shown elsewhere (Past Learnings), judged by the gate with the others but not
    placed nor left out here. `admitted`: the gate's `admissions` of `ranked`, when the build
    has them already."""
    dimensions = next(
        (len(s.candidate.embedding) for s in ranked if s.candidate.embedding is not None), 0
    )
    layers = FlexibleLayers(tokens, dimensions, max(len(ranked), 1))
    eligible: list[Scored] = []
    if admitted is None:
        admitted = admissions(ranked, rules.gate)
    for scored, admission in zip(ranked, admitted, strict=True):
        if scored.candidate.memory_id in reserved:
            continue
        if admission is None:
            layers.excluded[str(scored.candidate.memory_id)] = Excluded(scored, "score")
        else:
            eligible.append(scored)
            layers.admitted[scored.candidate.memory_id] = admission
    # First pass: each layer within its own share.
    for kind in FLEXIBLE_KINDS:
        for scored in (s for s in eligible if s.candidate.kind == kind):
            room = shares[kind] - layers.used[kind]
            if room < _MIN_ROOM:
                break
            summary_room = int(shares[kind] * rules.summary_share) - layers.used[kind]
            _place(layers, _fit(layers, scored, room, summary_room), rules)
    # Second pass: what a layer did not use goes to the best remaining candidates of any kind.
    taken = layers.included_ids() | set(layers.excluded)
    for scored in eligible:
        used = layers.total_used()
        room = pool - used
        if room < _MIN_ROOM:
            break
        if str(scored.candidate.memory_id) in taken:
            continue
        summary_room = int(pool * rules.summary_share) - used
        _place(layers, _fit(layers, scored, room, summary_room), rules)
    _upgrade(layers, pool)
    return layers
