"""Fill the layers within the budget at summary or micro detail, and render the context.

Pure: plain data in, plain data out. The returned text never has more tokens than the budget,
counted with the same tokenizer that `Tokens` wraps: the last step counts the whole text and drops
the least valuable parts until it fits.
"""

import functools
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Literal, Protocol

import numpy as np

from app.context.budget import FIXED_ORDER, fixed_cap, flexible_shares
from app.context.ranking import is_relevant
from app.context.types import (
    FLEXIBLE_KINDS,
    Censor,
    Detail,
    FlexibleKind,
    Frame,
    Scored,
    Vector,
)

SECTION_TITLES: dict[FlexibleKind, str] = {
    "decision": "Relevant Past Decisions",
    "fact": "Known Information",
    "procedure": "Procedures",
    "episode": "Past Experience",
}
LAYER_NAMES: dict[FlexibleKind, str] = {
    "decision": "decisions",
    "fact": "facts",
    "procedure": "procedures",
    "episode": "episodes",
}
SEPARATOR = "\n\n"
Reason = Literal["budget", "score", "duplicate"]


class Tokens(Protocol):
    """The target model's tokenizer."""

    def count(self, text: str) -> int: ...

    def truncate(self, text: str, max_tokens: int) -> str: ...


@dataclass(frozen=True)
class FixedContent:
    """What the always-present layers hold before they are fitted."""

    identity: str
    censors: Sequence[Censor]
    frame: Frame
    working_memory: str
    calibration: str | None


@dataclass(frozen=True)
class Rules:
    """What earns a place besides fitting."""

    min_similarity: float = 0.2
    duplicate_similarity: float = 0.95
    # The share of a layer that the strongest memories fill at summary detail (its best memory
    # whenever the summary fits); past it, further memories are listed at micro detail (one line
    # each), and whatever is left at the end turns the best of those back into summaries.
    # 1.0: summary whenever it fits.
    summary_share: float = 0.5


@dataclass(frozen=True)
class Included:
    scored: Scored
    detail: Detail
    tokens: int
    line: str


@dataclass(frozen=True)
class Excluded:
    scored: Scored
    reason: Reason


@dataclass(frozen=True)
class Layer:
    name: str
    budget: int
    used: int
    items: tuple[Included, ...] = ()


@dataclass(frozen=True)
class Assembly:
    text: str
    tokens: int
    layers: list[Layer]
    excluded: list[Excluded]


def render_item(scored: Scored, detail: Detail) -> str:
    """One list item; multi-line summaries are indented under their bullet."""
    candidate = scored.candidate
    text = candidate.summary if detail == "summary" else candidate.micro
    return "- " + text.strip().replace("\n", "\n  ")


def date_line(scored: Scored) -> str:
    """The line above past experiences of one day (they are listed in time order)."""
    return _day_line(scored.candidate.occurred_at.date())


@functools.lru_cache(maxsize=4096)
def _day_line(day: date) -> str:
    return f"On {day:%-d %B %Y}:"


def _timeline_key(item: "Included") -> tuple[datetime, int]:
    candidate = item.scored.candidate
    return (candidate.occurred_at, candidate.seq)


def _frame_body(frame: Frame) -> str:
    body = frame.description
    if frame.questions:
        body += "\nConsider:\n" + "\n".join(f"- {q}" for q in frame.questions)
    return body


@dataclass
class _Fixed:
    """The fitted text of each fixed layer (None when left out)."""

    sections: dict[str, str | None] = field(default_factory=dict)
    caps: dict[str, int] = field(default_factory=dict)


def _fit_text(tokens: Tokens, header: str, body: str, limit: int) -> str | None:
    if not body.strip() or limit <= 0:
        return None
    section = f"{header}\n{body}"
    if tokens.count(section) <= limit:
        return section
    room = limit - tokens.count(header) - 1
    if room < 4:
        return None
    return f"{header}\n{tokens.truncate(body, room)}"


def _fit_censors(tokens: Tokens, censors: Sequence[Censor], limit: int) -> str | None:
    header = "## Active Constraints"
    lines: list[str] = []
    ordered = sorted(censors, key=lambda c: (c.action != "block", str(c.memory_id)))
    for censor in ordered:
        line = f"- {censor.action.upper()}: {censor.pattern} — {censor.reason}"
        if tokens.count("\n".join([header, *lines, line])) <= limit:
            lines.append(line)
    return "\n".join([header, *lines]) if lines else None


def _fit_fixed(tokens: Tokens, content: FixedContent, budget: int) -> _Fixed:
    fixed = _Fixed()
    remaining = budget
    for layer in FIXED_ORDER:
        cap = min(fixed_cap(layer, budget), remaining)
        fixed.caps[layer] = cap
        if layer == "identity":
            section = _fit_text(tokens, "## Identity", content.identity, cap)
        elif layer == "censors":
            section = _fit_censors(tokens, content.censors, cap)
        elif layer == "working_memory":
            section = _fit_text(tokens, "## Current Focus", content.working_memory, cap)
        elif layer == "frame":
            header = f"## Current Approach: {content.frame.name.replace('_', ' ').title()}"
            section = _fit_text(tokens, header, _frame_body(content.frame), cap)
        else:
            section = _fit_text(tokens, "## Note", content.calibration or "", cap)
        fixed.sections[layer] = section
        if section is not None:
            remaining -= tokens.count(section) + 1  # +1: the blank line before the next section
    return fixed


@dataclass
class _Flexible:
    """What the flexible layers hold so far, with each rendered line counted once."""

    tokens: Tokens
    dimensions: int
    capacity: int
    chosen: dict[FlexibleKind, list[Included]] = field(
        default_factory=lambda: {kind: [] for kind in FLEXIBLE_KINDS}
    )
    used: dict[FlexibleKind, int] = field(default_factory=lambda: dict.fromkeys(FLEXIBLE_KINDS, 0))
    excluded: dict[str, Excluded] = field(default_factory=dict)
    _lines: dict[tuple[uuid.UUID, Detail], tuple[str, int]] = field(default_factory=dict)
    _dates: dict[str, int] = field(default_factory=dict)
    days: set[str] = field(default_factory=set)  # the date lines the chosen episodes need
    _vectors: Vector | None = None
    _count: int = 0

    def included_ids(self) -> set[str]:
        return {str(i.scored.candidate.memory_id) for items in self.chosen.values() for i in items}

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

    def is_duplicate(self, scored: Scored, threshold: float) -> bool:
        vector = scored.candidate.embedding
        if vector is None or self._vectors is None or self._count == 0:
            return False
        return bool((self._vectors[: self._count] @ vector).max() >= threshold)

    def add(self, included: Included, cost: int) -> None:
        candidate = included.scored.candidate
        self.chosen[candidate.kind].append(included)
        self.used[candidate.kind] += cost
        if candidate.kind == "episode":
            self.days.add(date_line(included.scored))
        if candidate.embedding is not None and candidate.embedding.shape == (self.dimensions,):
            if self._vectors is None:
                self._vectors = np.zeros((self.capacity, self.dimensions), dtype=np.float32)
            self._vectors[self._count] = candidate.embedding
            self._count += 1


def _header_cost(tokens: Tokens, kind: FlexibleKind) -> int:
    return tokens.count(f"## {SECTION_TITLES[kind]}") + 2


def _fit(
    tokens: Tokens, state: _Flexible, scored: Scored, room: int, summary_room: int
) -> tuple[Included, int] | None:
    """The item at summary detail within `summary_room`, else at micro within `room`, and its
    cost with the headers it brings along; None when it fits at neither."""
    kind = scored.candidate.kind
    header = _header_cost(tokens, kind) if not state.chosen[kind] else 0
    if kind == "episode":
        day = date_line(scored)
        if day not in state.days:
            header += state.date_cost(day)
    if not state.chosen[kind]:
        summary_room = room  # a layer's best memory has its summary whenever it fits
    details: tuple[Detail, ...] = ("summary", "micro")
    for detail in details:
        line, cost = state.line(scored, detail)
        if header + cost <= (summary_room if detail == "summary" else room):
            return Included(scored, detail, cost, line), header + cost
    return None


def _place(state: _Flexible, fit: tuple[Included, int] | None, rules: Rules) -> None:
    """Add a fitting item unless it repeats one already in (checked only for items that fit)."""
    if fit is None:
        return
    included, cost = fit
    if state.is_duplicate(included.scored, rules.duplicate_similarity):
        key = str(included.scored.candidate.memory_id)
        state.excluded[key] = Excluded(included.scored, "duplicate")
        return
    state.add(included, cost)


_MIN_ROOM = 4  # no item line is shorter: stop looking once less than this is left


def _fill_flexible(
    tokens: Tokens,
    ranked: Sequence[Scored],
    pool: int,
    shares: dict[FlexibleKind, int],
    rules: Rules,
) -> _Flexible:
    dimensions = next(
        (len(s.candidate.embedding) for s in ranked if s.candidate.embedding is not None), 0
    )
    state = _Flexible(tokens, dimensions, max(len(ranked), 1))
    eligible: list[Scored] = []
    for scored in ranked:
        if not is_relevant(scored, rules.min_similarity):
            state.excluded[str(scored.candidate.memory_id)] = Excluded(scored, "score")
        else:
            eligible.append(scored)
    # First pass: each layer within its own share.
    for kind in FLEXIBLE_KINDS:
        for scored in (s for s in eligible if s.candidate.kind == kind):
            room = shares[kind] - state.used[kind]
            if room < _MIN_ROOM:
                break
            summary_room = int(shares[kind] * rules.summary_share) - state.used[kind]
            _place(state, _fit(tokens, state, scored, room, summary_room), rules)
    # Second pass: what a layer did not use goes to the best remaining candidates of any kind.
    taken = state.included_ids() | set(state.excluded)
    for scored in eligible:
        used = sum(state.used.values())
        room = pool - used
        if room < _MIN_ROOM:
            break
        if str(scored.candidate.memory_id) in taken:
            continue
        summary_room = int(pool * rules.summary_share) - used
        _place(state, _fit(tokens, state, scored, room, summary_room), rules)
    # Last: give micro items their summary where the leftovers allow, best first.
    upgrades = sorted(
        (item for items in state.chosen.values() for item in items if item.detail == "micro"),
        key=lambda item: -item.scored.score,
    )
    for item in upgrades:
        line, cost = state.line(item.scored, "summary")
        kind = item.scored.candidate.kind
        if cost - item.tokens <= pool - sum(state.used.values()):
            chosen = state.chosen[kind]
            index = next(i for i, other in enumerate(chosen) if other is item)
            chosen[index] = Included(item.scored, "summary", cost, line)
            state.used[kind] += cost - item.tokens
    return state


def _render(fixed: _Fixed, state: _Flexible) -> str:
    sections: list[str] = []
    for layer in ("identity", "censors", "frame", "working_memory"):
        if (section := fixed.sections.get(layer)) is not None:
            sections.append(section)
    for kind in FLEXIBLE_KINDS:
        if kind == "episode":
            lines = _timeline(state.chosen[kind])
        else:
            lines = [
                item.line for item in sorted(state.chosen[kind], key=lambda i: -i.scored.score)
            ]
        if lines:
            sections.append(f"## {SECTION_TITLES[kind]}\n" + "\n".join(lines))
    if (note := fixed.sections.get("calibration")) is not None:
        sections.append(note)
    return SEPARATOR.join(sections)


def _timeline(items: Sequence[Included]) -> list[str]:
    """Past experiences in the order they happened, under a line for each day."""
    lines: list[str] = []
    day = None
    for item in sorted(items, key=_timeline_key):
        if (current := date_line(item.scored)) != day:
            day = current
            lines.append(current)
        lines.append(item.line)
    return lines


def _drop_one(tokens: Tokens, fixed: _Fixed, state: _Flexible, overflow: int) -> None:
    """Remove the least valuable part: flexible items first, then fixed layers bottom-up."""
    items = [item for items in state.chosen.values() for item in items]
    if items:
        worst = min(items, key=lambda item: item.scored.score)
        kind = worst.scored.candidate.kind
        state.chosen[kind].remove(worst)
        state.used[kind] -= worst.tokens
        state.excluded[str(worst.scored.candidate.memory_id)] = Excluded(worst.scored, "budget")
        return
    for layer in ("calibration", "frame", "working_memory", "censors"):
        section = fixed.sections.get(layer)
        if section is None:
            continue
        lines = section.split("\n")
        # A multi-item censor list loses its last line; anything else leaves whole.
        fixed.sections[layer] = (
            "\n".join(lines[:-1]) if layer == "censors" and len(lines) > 2 else None
        )
        return
    identity = fixed.sections.get("identity")
    if identity is not None:
        header, _, body = identity.partition("\n")
        room = tokens.count(body) - overflow - 1
        fixed.sections["identity"] = (
            f"{header}\n{tokens.truncate(body, room)}" if room >= 4 else None
        )


def assemble(
    tokens: Tokens,
    budget: int,
    content: FixedContent,
    ranked: Sequence[Scored],
    *,
    flexible_scale: float = 1.0,
    rules: Rules = Rules(),
) -> Assembly:
    """Fit the fixed layers, fill the flexible ones by score, render, and enforce the budget."""
    fixed = _fit_fixed(tokens, content, budget)
    fixed_used = sum(tokens.count(s) + 1 for s in fixed.sections.values() if s is not None)
    pool = max(int((budget - fixed_used) * flexible_scale), 0)
    shares = flexible_shares(pool, content.frame.priorities)
    state = _fill_flexible(tokens, ranked, pool, shares, rules)

    text = _render(fixed, state)
    count = tokens.count(text)
    while count > budget:
        _drop_one(tokens, fixed, state, count - budget)
        text = _render(fixed, state)
        count = tokens.count(text)

    included = state.included_ids()
    for scored in ranked:
        key = str(scored.candidate.memory_id)
        if key not in included and key not in state.excluded:
            state.excluded[key] = Excluded(scored, "budget")
    layers = [
        Layer(
            layer,
            fixed.caps[layer],
            tokens.count(s) if (s := fixed.sections.get(layer)) is not None else 0,
        )
        for layer in ("identity", "censors", "frame", "working_memory")
    ]
    for kind in FLEXIBLE_KINDS:
        items = tuple(sorted(state.chosen[kind], key=lambda i: -i.scored.score))
        layers.append(Layer(LAYER_NAMES[kind], shares[kind], state.used[kind], items))
    note = fixed.sections.get("calibration")
    layers.append(
        Layer(
            "calibration", fixed.caps["calibration"], tokens.count(note) if note is not None else 0
        )
    )
    excluded = sorted(state.excluded.values(), key=lambda e: -e.scored.score)
    return Assembly(text, count, layers, excluded)
