"""The manifest's parts as a build's response shows them: each item with its score parts and
links, the layers, the candidates left out and their counts, the gate's bar, the frame, the
totals, the input's vectors, the premises not borne out and the memories erased since."""

import uuid
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from app.context.types import Admission, Detail, FlexibleKind


class ScoreParts(BaseModel):
    semantic: float
    lexical: float
    frame: float
    recency: float
    outcome: float
    usage: float
    confidence: float
    adjacency: float
    period: float = 0.0  # 1 when the memory is from the day or month the input names
    link: float = Field(
        default=0.0,
        description="How strongly an anchor it shares ties it to a strong hit or the input; "
        "for a censor, the share of its words one of the build's strongest hits holds.",
    )
    retention: float = Field(
        default=1.0,
        description="The share of its score retention leaves it: below 1 for a fact never "
        "confirmed nor referenced for long (CE_RETENTION__FACT_STALE_FACTOR).",
    )


class ContextItem(BaseModel):
    """A memory in the context. A censor's score is its relevance: similarity, plus its share
    of trigger words in the input (`lexical`), whether it speaks to the frame (`frame`) and how
    much of it one of the build's strongest hits speaks of (`link`)."""

    memory_id: uuid.UUID
    kind: FlexibleKind | Literal["censor"]
    detail: Detail
    tokens: int
    score: float
    components: ScoreParts | None = Field(
        default=None, description="What the score is made of; null in a compact manifest."
    )
    reason: Admission | Literal["trigger", "relevant", "few"] = Field(
        description="Why it is in: `meaning` (at least half as similar as the build's most "
        "similar memory), `words` (more than half the best word match), `kind_best` (the most "
        "similar procedure, in a frame that calls for procedures), `standout` (far above the "
        "others of its kind), `neighbour` (next to a strong hit on the timeline), `period` "
        "(from the day or month the input names), "
        "`linked` (shares a name or rare term with a strong hit or the input: see `link`); "
        "a censor: `trigger` (the input holds its trigger), `relevant`, or `few` (the agent has "
        "at most three censors: all are shown)."
    )
    link: "LinkRead | None" = Field(
        default=None, description="What ties it to a strong hit or the input, when anything."
    )


class LinkRead(BaseModel):
    """The anchor a memory shares with a strong hit of the build (or with its input)."""

    anchor: str = Field(description="The name or rare term they share, lower case.")
    memory_id: uuid.UUID | None = Field(
        description="The hit it came through; null when the input itself names the anchor."
    )
    strength: float


class LayerRead(BaseModel):
    """A layer: its share of the budget, what it used, and what it holds. With a session, the
    last layer is `learnings` (Past Learnings): its budget is the window's learnings share and
    its `used` what the section added to `context`."""

    name: str
    budget: int
    used: int
    items: list[ContextItem]


class LeftOut(BaseModel):
    """A candidate that did not make it, and why."""

    memory_id: uuid.UUID
    kind: FlexibleKind | Literal["censor"]
    reason: Literal["budget", "score", "duplicate"] = Field(
        description="`score`: the relevance gate let it in by none of its ways (see `gate`), "
        "for a censor: not relevant enough among the agent's censors; `budget`: no room was "
        "left; `duplicate`: a memory in the context says the same."
    )
    score: float
    components: ScoreParts | None = Field(
        default=None, description="What the score is made of, as for an item."
    )


class GateRead(BaseModel):
    """The relevance gate's bar in this build: a candidate is in by its meaning when at least
    `similarity_floor` similar to the input, by its words when it holds more than
    `min_word_share` of the best word match (other ways: see an item's `reason`)."""

    best_similarity: float
    similarity_floor: float
    min_word_share: float


class LeftOutCounts(BaseModel):
    """How many candidates did not make it, by reason: all of them, where `left_out` lists
    the best few (none in a compact manifest)."""

    budget: int
    score: int
    duplicate: int


class FrameRead(BaseModel):
    name: str
    confidence: float
    source: Literal["requested", "selected"]
    scores: dict[str, float]


class Totals(BaseModel):
    """The memory context's budget, where it came from (with a session: `window`, its memory
    share, unless the request names a `budget`), and its tokens."""

    budget: int
    budget_source: Literal["request", "frame", "agent", "window"]
    used: int
    utilization: float
    encoding: str
    candidates: int


class InputEmbeddingRead(BaseModel):
    """Whether the search used the input's meaning; without its embedding, only its words."""

    embedded: bool
    reason: str | None = Field(
        default=None,
        description="Why not: the embeddings provider is down, gave no answer within "
        "CE_CONTEXT__EMBEDDING_DEADLINE_SECONDS, or failed.",
    )
    rescored: bool = Field(
        default=False,
        description="Whether the rescoring model (CE_EMBEDDINGS__RESCORE_MODEL) embedded the "
        "input, so that it judged the similarity of each candidate that has its vector (the "
        "others, written moments ago, by the search model's): false when none is set, or its "
        "vector of the input was not ready within the deadline.",
    )


class PremiseRead(BaseModel):
    """Something the input takes for granted that the agent's memory does not bear out."""

    text: str = Field(description='The premise as the input implies it: "the cluster crashed".')
    status: Literal["unsupported", "contradicted"] = Field(
        description="`unsupported`: memories are about its subject but none records it; "
        "`contradicted`: the memories that record it deny it, or it rests on a fact marked "
        "invalid or superseded."
    )
    memory_ids: list[uuid.UUID] = Field(
        description="Unsupported: the memories about its subject; contradicted: those that "
        "deny it, or the invalid or superseded fact (and the one that replaced it)."
    )
    note: str = Field(description="The line about it at the end of `context`.")
    in_context: bool = Field(
        description="Whether the note is in `context`: it is left out when it would take more "
        "than a tenth of the budget or the context with it would exceed the budget."
    )


class ErasedRead(BaseModel):
    """A memory of the build erased since: its id, kind and when; its text is gone."""

    memory_id: uuid.UUID
    kind: FlexibleKind | Literal["censor"]
    erased_at: datetime
