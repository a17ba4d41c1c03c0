"""The manifest step: what a build returns and stores besides its text. Pure.

Each layer's budget, use and items (memory, kind, detail, tokens, score and its components; with
a session, Past Learnings as the last layer, `learnings`), the candidates left out and why, the
frame, the totals, whether the input was embedded, and the milliseconds of each stage.

The manifest is plain data in the form `ContextBuildResponse` gives it, every field present:
a build returns a hundred items and more, and checking them against the models cost a build
more than all of its ranking (tests/context/text/test_build_document_api.py holds the two
together).
"""

import itertools
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from app.context.history.conversation import History
from app.context.history.learnings import Learnings
from app.context.history.manifest import chat_messages, history_read
from app.context.history.schemas import HistoryRead
from app.context.premises.check import PremiseCheck
from app.context.premises.check import read as premises_read
from app.context.schemas import ManifestDetail
from app.context.selection.budget import BudgetPlan
from app.context.selection.constraints import ScoredCensor
from app.context.selection.fill import FlexibleLayers
from app.context.selection.gate import GateBar
from app.context.text.left_out import left_out_read
from app.context.text.parts import censor_parts, score_parts
from app.context.text.render import LEADING, FixedSections
from app.context.text.schemas import LeftOutCounts
from app.context.types import (
    FLEXIBLE_KINDS,
    Excluded,
    FlexibleKind,
    FrameChoice,
    Included,
    InputEmbedding,
    Link,
    Scored,
)
from app.providers.tokenizer import Tokens

LAYER_NAMES: dict[FlexibleKind, str] = {
    "decision": "decisions",
    "fact": "facts",
    "procedure": "procedures",
    "episode": "episodes",
}


@dataclass(frozen=True)
class Layer:
    name: str
    budget: int
    used: int
    items: tuple[Included, ...] = ()


@dataclass(frozen=True)
class Assembly:
    """The context's text and tokens, its layers, the candidates left out, best first, and
    every censor scored with those shown (in their order)."""

    text: str
    tokens: int
    layers: list[Layer]
    excluded: list[Excluded]
    censors: Sequence[ScoredCensor] = ()
    shown_censors: Mapping[uuid.UUID, int] = field(default_factory=dict)  # id -> its tokens
    gate: GateBar | None = None  # the relevance gate's bar in this build

    def included(self) -> list[Included]:
        return [item for layer in self.layers for item in layer.items]

    def included_ids(self) -> list[uuid.UUID]:
        return [item.scored.candidate.memory_id for item in self.included()]


def account(
    tokens: Tokens,
    fixed: FixedSections,
    layers: FlexibleLayers,
    shares: Mapping[FlexibleKind, int],
    ranked: Sequence[Scored],
    text: str,
    count: int,
    censors: Sequence[ScoredCensor] = (),
) -> Assembly:
    """The layers as they ended up; a candidate neither in nor left out already was left out
    for the budget."""
    included = layers.included_ids()
    for scored in ranked:
        key = str(scored.candidate.memory_id)
        if key not in included and key not in layers.excluded:
            layers.excluded[key] = Excluded(scored, "budget")

    def fixed_layer(name: str) -> Layer:
        section = fixed.sections.get(name)
        return Layer(name, fixed.caps[name], tokens.count(section) if section is not None else 0)

    result = [fixed_layer(name) for name in LEADING]
    for kind in FLEXIBLE_KINDS:
        items = tuple(sorted(layers.chosen[kind], key=lambda i: -i.scored.score))
        result.append(Layer(LAYER_NAMES[kind], shares[kind], layers.used[kind], items))
    result.append(fixed_layer("calibration"))
    excluded = sorted(layers.excluded.values(), key=lambda e: -e.scored.score)
    return Assembly(text, count, result, excluded, censors, _censor_tokens(tokens, fixed))


def _censor_tokens(tokens: Tokens, fixed: FixedSections) -> dict[uuid.UUID, int]:
    """Each shown censor and the tokens of its item, the line break before it included."""
    return {censor_id: tokens.count(item) + 1 for censor_id, item in fixed.shown_censors()}


@dataclass(frozen=True)
class Built:
    """Everything a build decided, for its manifest."""

    build_id: uuid.UUID
    created_at: datetime
    parent_id: uuid.UUID | None
    agent_id: uuid.UUID
    agent_name: str
    choice: FrameChoice
    plan: BudgetPlan
    encoding: str
    candidates: int
    assembly: Assembly
    embedding: InputEmbedding
    history: History | None = None
    learnings: Learnings | None = None  # with a session
    premises: PremiseCheck | None = None  # what the input takes for granted, when flagged

    def included(self) -> list[Included]:
        """Every memory in the context: the layers' and Past Learnings'."""
        return self.assembly.included() + list(self.learnings.items if self.learnings else ())

    def item_ids(self) -> list[uuid.UUID]:
        """Every memory the context holds: its layers', Past Learnings' and the constraints'
        (feedback and refresh name them all)."""
        memories = [item.scored.candidate.memory_id for item in self.included()]
        return memories + list(self.assembly.shown_censors)


def _link(link: Link | None) -> dict[str, object] | None:
    if link is None:
        return None
    return {"anchor": link.anchor, "memory_id": link.via, "strength": round(link.strength, 4)}


def _censor_items(assembly: Assembly, compact: bool) -> list[dict[str, object]]:
    """The censors shown, with what their relevance is made of unless compact."""
    return [
        {
            "memory_id": s.censor.memory_id,
            "kind": "censor",
            "detail": "summary",
            "tokens": assembly.shown_censors[s.censor.memory_id],
            "score": s.relevance,
            "components": None if compact else censor_parts(s),
            "reason": s.reason,
            "link": None,
        }
        for s in assembly.censors
        if s.censor.memory_id in assembly.shown_censors
    ]


def _layers(built: Built, compact: bool) -> list[dict[str, object]]:
    """The layers in the order of the text; with a session, Past Learnings last. Compact: the
    items without their score components."""
    assembly, learned = built.assembly, built.learnings
    layers = list(assembly.layers)
    if learned is not None:
        layers.append(Layer("learnings", learned.budget, learned.used, learned.items))
    parts = iter(
        itertools.repeat(None) if compact else score_parts([i.scored for i in built.included()])
    )
    return [
        {
            "name": layer.name,
            "budget": layer.budget,
            "used": layer.used,
            "items": _censor_items(assembly, compact)
            if layer.name == "censors"
            else [
                {
                    "memory_id": i.scored.candidate.memory_id,
                    "kind": i.scored.candidate.kind,
                    "detail": i.detail,
                    "tokens": i.tokens,
                    "score": i.scored.score,
                    "components": next(parts),
                    "reason": i.reason,
                    "link": _link(i.scored.candidate.link),
                }
                for i in layer.items
            ],
        }
        for layer in layers
    ]


def manifest(
    built: Built, timings_ms: Mapping[str, float], detail: ManifestDetail = "full"
) -> dict[str, object]:
    """The response as plain data (`ContextBuildResponse`'s fields, in its order)."""
    assembly, plan = built.assembly, built.plan
    similarities = [
        i.scored.components["semantic"]
        for i in built.included()
        if i.scored.candidate.semantic is not None
    ]
    compact = detail == "compact"
    left_out, counts = left_out_read(
        assembly.excluded, assembly.censors, assembly.shown_censors, compact
    )
    choice = built.choice
    return {
        "context_id": built.build_id,
        "agent_id": built.agent_name,
        # With a session, the recalled messages' section after the memory context's.
        "context": built.history.recall.text if built.history else assembly.text,
        "frame": {
            "name": choice.frame.name,
            "confidence": choice.confidence,
            "source": choice.source,
            "scores": choice.scores,
        },
        "layers": _layers(built, compact),
        "left_out": left_out,
        "left_out_counts": {reason: counts[reason] for reason in LeftOutCounts.model_fields},
        "manifest": detail,
        "totals": {
            "budget": plan.total,
            "budget_source": plan.source,
            "used": assembly.tokens,
            "utilization": utilization(built),
            "encoding": built.encoding,
            "candidates": built.candidates,
        },
        "relevance": round(float(np.mean(similarities)), 4) if similarities else None,
        "gate": vars(assembly.gate) if assembly.gate else None,
        "input_embedding": {
            "embedded": built.embedding.vector is not None,
            "reason": built.embedding.reason,
            "rescored": built.embedding.rescore is not None,
        },
        "messages": chat_messages(built.history) if built.history else None,
        "history": _history(built),
        "premises": premises_read(built.premises),
        "timings_ms": dict(timings_ms),
        "created_at": built.created_at,
        "parent_id": built.parent_id,
        "erased": [],
    }


def utilization(built: Built) -> float:
    """The share of the memory budget the context used."""
    total = built.plan.total
    return round(built.assembly.tokens / total, 4) if total else 0.0


def _history(built: Built) -> dict[str, object] | None:
    """The manifest's `history` (with a session): few fields, some left out when empty, so
    its model writes them."""
    if built.history is None:
        return None
    learnings = built.learnings.budget if built.learnings else 0
    found = history_read(built.history, built.plan.total, learnings)
    return HistoryRead.model_validate(found).model_dump(mode="json")
