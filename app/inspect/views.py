"""What the pages show, worked out from a stored build and a memory: pure functions, no I/O."""

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from pydantic import JsonValue

from app.context.schemas import ContextBuildResponse
from app.context.text.schemas import ContextItem, GateRead, LeftOut, ScoreParts
from app.inspect.repository import BuildRow
from app.memories.schemas import MemoryRead
from app.retention.history import HistoryEvent

SCORE_PARTS = tuple(ScoreParts.model_fields)
# Counters and notes that the lifecycle actions keep in a memory's fields.
LIFECYCLE_FIELDS = (
    "confirmation_count",
    "activation_count",
    "success_count",
    "effectiveness",
    "false_positive_count",
    "outcome",
    "outcome_notes",
)


def percent(part: float, whole: float) -> float:
    """The share of `whole` that `part` is, for a bar's width: 0 to 100, 0 for an empty whole."""
    if whole <= 0:
        return 0.0
    return round(max(0.0, min(100.0, 100.0 * part / whole)), 1)


@dataclass(frozen=True)
class Bar:
    """A labelled quantity and its bar: `width` is a percentage of the bar's track."""

    label: str
    value: float
    whole: float
    width: float
    over: bool = False


@dataclass(frozen=True)
class ItemView:
    """A memory of the context, with its one-line text and its score parts."""

    item: ContextItem
    text: str
    parts: list[tuple[str, float]]


@dataclass(frozen=True)
class LayerView:
    name: str
    budget: int
    used: int
    bar: Bar
    items: list[ItemView]


@dataclass(frozen=True)
class LeftOutView:
    memory_id: uuid.UUID
    kind: str
    reason: str
    score: float
    text: str
    why: str  # what kept it out, in words
    parts: list[tuple[str, float]]


def why_left_out(out: LeftOut, gate: GateRead | None) -> str:
    """What kept a candidate out: the gate's bar it stayed under, no room, or a duplicate."""
    if out.reason == "budget":
        return "let in, but no room was left in its layer"
    if out.reason == "duplicate":
        return "says what a memory in the context says"
    parts = out.components
    if out.kind == "censor":
        return "not relevant enough to the input among the agent's censors"
    if parts is None or gate is None:
        return "not let in by the relevance gate"
    return (
        f"similarity {parts.semantic:.3f}, under the floor {gate.similarity_floor:.3f} (the "
        f"best: {gate.best_similarity:.3f}); words {parts.lexical:.3f}, not over "
        f"{gate.min_word_share:.2f}; no other way in (best of its kind, standing out, a "
        "neighbour, the period named, a link)"
    )


@dataclass(frozen=True)
class FeedbackView:
    """The feedback recorded on a build: the memories the LLM used, of those loaded."""

    precision: JsonValue
    referenced: list[JsonValue]
    source: str


@dataclass(frozen=True)
class BuildPage:
    """Everything the build page shows."""

    build: ContextBuildResponse
    input: str
    feedback: FeedbackView | None
    budget_bar: Bar
    layers: list[LayerView]
    left_out: list[LeftOutView]
    frame_bars: list[Bar]
    timing_bars: list[Bar]


@dataclass(frozen=True)
class LifecycleEvent:
    """A line of a memory's lifecycle: when, what, and the state it left the memory in."""

    label: str
    detail: str
    at: str = ""


@dataclass(frozen=True)
class MemoryPage:
    """Everything the memory page shows."""

    memory: MemoryRead
    lifecycle: list[LifecycleEvent]
    counters: list[tuple[str, JsonValue]]
    supersedes: list[uuid.UUID]
    builds: list[BuildRow]
    left_out_of: list[BuildRow] = field(default_factory=list)  # a candidate there, left out
    other_fields: list[tuple[str, JsonValue]] = field(default_factory=list)


def _feedback(stored: dict[str, JsonValue] | None) -> FeedbackView | None:
    if stored is None:
        return None
    referenced = stored.get("referenced")
    return FeedbackView(
        stored.get("precision"),
        referenced if isinstance(referenced, list) else [],
        str(stored.get("from", "")),
    )


def build_page(
    build: ContextBuildResponse,
    input_text: str,
    texts: dict[uuid.UUID, str],
    feedback: dict[str, JsonValue] | None = None,
) -> BuildPage:
    """The build page of a stored build; `texts` are the memories' one-line texts."""
    layers = [
        LayerView(
            name=layer.name,
            budget=layer.budget,
            used=layer.used,
            bar=Bar(
                layer.name,
                layer.used,
                layer.budget,
                percent(layer.used, layer.budget),
                over=layer.used > layer.budget,
            ),
            items=[
                ItemView(
                    item,
                    texts.get(item.memory_id, "(erased)"),
                    _parts(item.components),
                )
                for item in layer.items
            ],
        )
        for layer in build.layers
    ]
    totals = build.totals
    best_frame = max(build.frame.scores.values(), default=0.0)
    slowest = max(build.timings_ms.values(), default=0.0)
    return BuildPage(
        build=build,
        input=input_text,
        feedback=_feedback(feedback),
        budget_bar=Bar(
            "memory layers", totals.used, totals.budget, percent(totals.used, totals.budget)
        ),
        layers=layers,
        left_out=_left_out(build, texts),
        frame_bars=[
            Bar(name, score, best_frame, percent(score, best_frame))
            for name, score in sorted(build.frame.scores.items(), key=lambda kv: -kv[1])
        ],
        timing_bars=[
            Bar(stage, ms, slowest, percent(ms, slowest)) for stage, ms in build.timings_ms.items()
        ],
    )


def _left_out(build: ContextBuildResponse, texts: dict[uuid.UUID, str]) -> list[LeftOutView]:
    return [
        LeftOutView(
            out.memory_id,
            out.kind,
            out.reason,
            out.score,
            texts.get(out.memory_id, ""),
            why_left_out(out, build.gate),
            _parts(out.components),
        )
        for out in build.left_out
    ]


def _parts(parts: ScoreParts | None) -> list[tuple[str, float]]:
    return [(name, getattr(parts, name)) for name in SCORE_PARTS] if parts is not None else []


def memory_ids(build: ContextBuildResponse) -> list[uuid.UUID]:
    """The memories a build names: loaded and left out."""
    loaded = [item.memory_id for layer in build.layers for item in layer.items]
    return loaded + [out.memory_id for out in build.left_out]


def _when(moment: datetime) -> str:
    return f"{moment:%Y-%m-%d %H:%M:%S} UTC"


def _event(event: HistoryEvent, kind: str) -> LifecycleEvent:
    """One line of the lifecycle, in words."""
    when = _when(event.at)
    if event.event == "written":
        article = "an" if kind[:1] in "aeiou" else "a"
        state = f" in state '{event.to_state}'" if event.to_state else ""
        return LifecycleEvent("written", f"as {article} {kind}{state}", when)
    if event.event == "embedded":
        return LifecycleEvent("embedded", f"by {event.detail}", when)
    what = f"'{event.from_state}' → '{event.to_state}'"
    if event.event == "retention":
        undone = f"; undone {_when(event.restored_at)}" if event.restored_at else ""
        return LifecycleEvent(f"retention: {event.name}", f"{what}: {event.detail}{undone}", when)
    changes = event.changes or {}
    for name in ("outcome", "outcome_notes"):
        change = changes.get(name)
        if isinstance(change, dict) and change.get("from") != change.get("to"):
            before, after = (_said(change.get(side)) for side in ("from", "to"))
            what += f"; {name.replace('_', ' ')} {before} → {after}"
    return LifecycleEvent(str(event.name), what, when)


def _said(value: JsonValue) -> str:
    return f"'{value}'" if isinstance(value, str) else "none"


def memory_page(
    memory: MemoryRead,
    history: Sequence[HistoryEvent],
    supersedes: list[uuid.UUID],
    builds: list[BuildRow],
    left_out_of: list[BuildRow],
) -> MemoryPage:
    """The memory page: its record, its lifecycle (written, embedded, the actions taken on it
    and retention's changes with their reasons, oldest first), the builds it was in and those
    that left it out."""
    events = [_event(event, memory.kind) for event in history]
    updated = f"last updated {_when(memory.provenance.updated_at)}"
    events.append(LifecycleEvent("now", f"in state '{memory.state}'", updated))
    counters: list[tuple[str, JsonValue]] = [
        (name, value) for name in LIFECYCLE_FIELDS if (value := memory.fields.get(name)) is not None
    ]
    return MemoryPage(
        memory=memory,
        lifecycle=events,
        counters=counters,
        supersedes=supersedes,
        builds=builds,
        left_out_of=left_out_of,
        other_fields=[
            (name, value) for name, value in memory.fields.items() if name not in LIFECYCLE_FIELDS
        ],
    )
