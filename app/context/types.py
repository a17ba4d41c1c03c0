"""Plain data passed between the stages of context assembly (no I/O, no ORM objects)."""

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Literal

import numpy as np
from numpy.typing import NDArray

FlexibleKind = Literal["decision", "fact", "procedure", "episode"]
FLEXIBLE_KINDS: tuple[FlexibleKind, ...] = ("decision", "fact", "procedure", "episode")
Detail = Literal["summary", "excerpt", "micro"]
Vector = NDArray[np.float32]
LeftOutReason = Literal["budget", "score", "duplicate"]
# Why a memory may take a place: similar enough, its words, the best or a stand-out of its kind,
# the neighbour of a strong hit, from the period the input names, or linked to a strong hit (or
# the input) by an anchor they share.
Admission = Literal["meaning", "words", "kind_best", "standout", "neighbour", "period", "linked"]


@dataclass(frozen=True)
class Frame:
    """A way of approaching an input: what to consider and which kinds of memory matter."""

    name: str
    description: str
    questions: tuple[str, ...]
    priorities: dict[FlexibleKind, float]
    default_budget: int
    examples: tuple[str, ...] = ()
    cues: tuple[str, ...] = ()
    # How much newer memories matter for this kind of input (scales the recency weight):
    # a question may be about anything that ever happened, a bug is often about the last change.
    recency: float = 1.0


@dataclass(frozen=True)
class FrameChoice:
    """The selected frame, how sure the selector is, and every frame's score."""

    frame: Frame
    confidence: float
    scores: dict[str, float]
    source: Literal["requested", "selected"]


@dataclass(frozen=True)
class Calibration:
    """How well the agent's stated confidence matched the outcomes of its reviewed decisions."""

    reviewed: int
    accuracy: float
    brier: float
    bias: float  # mean confidence minus accuracy: > 0 overconfident, < 0 underconfident
    note: str


# Candidates and their scores are made by the hundred in every build, so they are not frozen:
# a frozen dataclass sets each field through object.__setattr__ (3.3 µs for a Candidate, 1.1 as
# it is). Nothing changes them after they are made but a candidate's `link` (`links.attach`).
@dataclass(slots=True)
class Candidate:
    """A memory found by the search, with what ranking and rendering need."""

    memory_id: uuid.UUID
    kind: FlexibleKind
    micro: str
    summary: str
    semantic: float | None  # cosine similarity to the input; None before it is embedded
    lexical: float  # the summed rarity of the input's words it holds, 0 when none
    occurred_at: datetime
    seq: int = 0  # order of writing: orders memories that happened at the same time
    confidence: float | None = None
    outcome: str | None = None
    usage: int = 0  # references from feedback plus recorded activations
    state: str = ""  # its lifecycle state (a core fact outranks a new one)
    title: str | None = None  # a procedure's name: its section's heading
    effectiveness: float | None = None  # a procedure's share of successful activations
    embedding: Vector | None = None
    neighbour_of: uuid.UUID | None = None  # found next to a strong episode hit
    # The passages of its full text around the input's words, when its summary holds none.
    excerpt: str | None = None
    rank_factor: float = 1.0  # retention's: below 1 for a fact stale for long
    link: "Link | None" = None  # tied to a strong hit or the input by an anchor they share
    anchors: frozenset[str] = frozenset()  # its first names and rare terms


@dataclass(frozen=True)
class Link:
    """How strongly a memory is tied to a build's strongest hits (or its input), and by what:
    the anchor of the strongest tie and the hit it came through (None: the input)."""

    strength: float
    anchor: str
    via: uuid.UUID | None


@dataclass(frozen=True)
class Seeds:
    """Where associative recall starts: hits nearest the input with their share of the best
    similarity, and the input's own anchors."""

    hits: list[tuple[uuid.UUID, float]]
    input_anchors: list[str]
    anchors: frozenset[str] | None = None  # the hits' and the input's; None: not known

    def __bool__(self) -> bool:
        return bool(self.hits or self.input_anchors)


@dataclass(slots=True)
class Scored:
    """A candidate with its composite score and the components it is made of."""

    candidate: Candidate
    score: float
    components: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class Censor:
    """An active constraint, with what its relevance to an input is judged by."""

    memory_id: uuid.UUID
    action: str
    pattern: str
    reason: str
    domain: str = ""
    terms: frozenset[str] = frozenset()  # its trigger's and domain's words, stemmed
    embedding: Vector | None = None


@dataclass(frozen=True)
class Standing:
    """What a build reads besides its search results: the agent's active censors, the
    (confidence, outcome) of its latest reviewed decisions (the calibration note), and the notes
    of those outcomes by decision (the lessons of Past Learnings)."""

    censors: Sequence[Censor]
    reviewed: list[tuple[float, str]]
    notes: dict[uuid.UUID, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Included:
    """A memory in the context: at which detail, its rendered line and what it costs."""

    scored: Scored
    detail: Detail
    tokens: int  # of its line, newline included
    line: str
    reason: "Admission" = "meaning"  # what let it in (`app.context.selection.gate`)


@dataclass(frozen=True)
class Excluded:
    """A candidate left out, and why."""

    scored: Scored
    reason: LeftOutReason


@dataclass(frozen=True)
class InputEmbedding:
    """The input's vector, or why there is none (memories are then found by words alone); and
    the rescoring model's vector, where one is set and it came in time."""

    vector: Vector | None
    reason: str | None = None
    rescore: Vector | None = None


@dataclass(frozen=True)
class Neighbours:
    """The episodes just before and after the strongest episode hits come along: of this many
    hits (a bigger budget has room for more), this many on each side, happened while the hit
    lasted or at most `gap` before or after it; 0: none."""

    hits: int = 0
    window: int = 0
    gap: timedelta = timedelta(minutes=30)  # at most this long before or after the hit


@dataclass(frozen=True)
class Period:
    """A half-open UTC interval [start, end)."""

    start: datetime
    end: datetime

    def __contains__(self, moment: datetime) -> bool:
        return self.start <= moment < self.end
