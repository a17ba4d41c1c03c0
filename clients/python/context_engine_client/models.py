"""The service's request and response bodies, generated from openapi/openapi.json.

Do not edit: `make client-models` writes this file again (a test fails when it drifts).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field
from pydantic import JsonValue as Json


class AgentPage(BaseModel):
    """One page of the tenant's agents, newest first; pass `next_cursor` as `cursor` for the
    next.
    """

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    items: list[AgentRead]
    next_cursor: str | None
    """`<microseconds since 1970 UTC>_<agent_id>` of the page's last agent; null on the last
    page.
    """


class AgentRead(BaseModel):
    """AgentRead"""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    agent_id: str
    identity: Identity
    working_memory: WorkingMemory
    default_budget: int | None
    model: str | None
    default_window: ContextWindow | None
    """The window fields the agent's builds with a session default to; null fields (or none
    at all) come from the settings.
    """
    created_at: datetime
    updated_at: datetime


class AgentUpsert(BaseModel):
    """An agent's identity and context defaults."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    identity: Identity
    default_budget: int | None = None
    """Token budget of a context when the request names none."""
    model: str | None = None
    """Target model; picks the tokenizer that counts the budget."""
    default_window: ContextWindow | None = None
    """Window defaults of the agent's builds with a session, any of the fields: a field of
    the request's window wins, then this, then its CE_CONTEXT__WINDOW__ setting. Each
    field is checked here; the whole window when a build resolves it: a build whose window
    these defaults leave without a token, or with fractions over 1, answers 409 naming the
    field.
    """


class AmendOutcome(BaseModel):
    """Decision, once reviewed: correct its outcome. The notes replace the old ones (none
    when omitted); the lifecycle log keeps what it said before.
    """

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    action: Literal["amend_outcome"]
    outcome: Literal["pending", "success", "partial", "failure"]
    notes: str | None = None


class Archive(BaseModel):
    """Episode: only summary and metadata matter now."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    action: Literal["archive"]


class CensorCreate(BaseModel):
    """Something not to do: a trigger pattern, why, and whether to warn or block."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    source: str | None = None
    """Where the memory came from (a tool, a user, a document)."""
    metadata: dict[str, StoredJson] | None = None
    """Free-form JSON, filterable with `metadata=` on the list."""
    occurred_at: datetime | None = None
    """When it happened; an episode's defaults to its started_at, else its ended_at; else the
    time of writing.
    """
    kind: Literal["censor"]
    trigger_pattern: str
    reason: str
    action: Literal["warn", "block"] = "warn"
    domain: str | None = None


class ChatMessageCreate(BaseModel):
    """A message of the system prompt, the user or the assistant."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    content: str
    created_at: datetime | None = None
    """When it was said; defaults to the time of the append."""
    role: Literal["user", "assistant", "system"]
    name: str | None = None


class ChatMessageRead(BaseModel):
    """A message of the history to send, in the OpenAI chat format (`name` and `tool_call_id`
    only when the message has them).
    """

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    role: Literal["user", "assistant", "system", "tool"]
    content: str
    name: str | None = None
    tool_call_id: str | None = None


class Confirm(BaseModel):
    """Fact: seen again; three confirmations make it core."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    action: Literal["confirm"]


class ContextBuildList(BaseModel):
    """An agent's latest builds, newest first; GET /context/{context_id} reads one whole, and
    `next_cursor` as `cursor` gives the next page.
    """

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    items: list[ContextBuildSummary]
    next_cursor: str | None = None


class ContextBuildRequest(BaseModel):
    """What the agent is about to answer, and the limits of the context for it."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    agent_id: str
    input: str
    frame: str | None = None
    """Use this frame instead of selecting one from the input."""
    budget: int | None = None
    """Hard token limit; else the frame's budget, else the agent's."""
    model: str | None = None
    """Target model: its tokenizer counts the budget."""
    now: datetime | None = None
    """Reference time for recency; defaults to the server clock."""
    kinds: list[Literal["decision", "fact", "procedure", "episode"]] | None = None
    """Only these kinds of memory in the relevant layers."""
    metadata: dict[str, StoredJson] | None = None
    """Only memories whose metadata contains this JSON object."""
    session_id: str | None = None
    """The session whose history comes with the context, as `messages`, within the window; a
    session without messages yet gives none.
    """
    window: ContextWindow | None = None
    """With `session_id` only, and instead of `budget`: the whole prompt's tokens and their
    shares; each field defaults to the agent's default_window, then to its
    CE_CONTEXT__WINDOW__ setting.
    """
    manifest: Literal["full", "compact"] = "full"
    """`compact` for clients that do not read the manifest: items without their score
    components, the candidates left out as counts only (`left_out_counts`); a smaller
    answer, built and sent faster, and stored as it was returned.
    """


class ContextBuildResponse(BaseModel):
    """The context to put in the system prompt, and the manifest that explains it."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    context_id: str
    agent_id: str
    context: str
    frame: FrameRead
    layers: list[LayerRead]
    left_out: list[LeftOut]
    """The best candidates that did not make it (50 memories and 50 constraints at most);
    empty in a compact manifest.
    """
    left_out_counts: LeftOutCounts | None = None
    """Absent from builds stored by versions that did not count."""
    manifest: Literal["full", "compact"] = "full"
    """As requested: `compact` leaves out the score details."""
    totals: Totals
    relevance: float | None
    """Mean similarity of the loaded memories."""
    gate: GateRead | None = None
    """Absent from builds stored by versions that did not say."""
    input_embedding: InputEmbeddingRead | None = None
    """Absent from builds stored by versions that did not say."""
    messages: list[ChatMessageRead] | None = None
    """With session_id: the session's history to send after the system prompt, in the OpenAI
    chat format; null without.
    """
    history: HistoryRead | None = None
    """With session_id: which messages were kept; null without."""
    premises: list[PremiseRead] | None = None
    """What the input takes for granted that the agent's memory does not bear out (no LLM:
    found by rules, checked against the memories the search found).
    """
    timings_ms: dict[str, float]
    created_at: datetime
    parent_id: str | None = None
    erased: list[ErasedRead] | None = None
    """In a stored build: the memories it named that were erased since. Their ids, scores and
    token counts stay; their lines in `context` read `- [erased]`.
    """


class ContextBuildSummary(BaseModel):
    """A stored build in a list: what was asked, its frame, tokens and the feedback on it."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    context_id: str
    parent_id: str | None
    """The build a refresh rebuilt."""
    input: str
    frame: str
    budget: int
    used: int
    relevance: float | None
    precision: float | None
    """Of the feedback; null before any."""
    created_at: datetime


class ContextDelta(BaseModel):
    """ContextDelta"""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    added: list[str]
    removed: list[str]


class ContextExpandRequest(BaseModel):
    """A memory to open, and the context it was listed in."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    memory_id: str
    context_id: str | None = None


class ContextFeedback(BaseModel):
    """Which memories of the context the LLM used: by id, or worked out from its reply."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    used_memory_ids: list[str] | None = None
    """The memories of the context the LLM used."""
    reply: str | None = None
    """The LLM's reply: the service works out which memories it refers to."""


class ContextFeedbackResponse(BaseModel):
    """ContextFeedbackResponse"""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    context_id: str
    referenced: list[str]
    included: int
    precision: float


class ContextItem(BaseModel):
    """A memory in the context. A censor's score is its relevance: similarity, plus its share
    of trigger words in the input (`lexical`), whether it speaks to the frame (`frame`)
    and how much of it one of the build's strongest hits speaks of (`link`).
    """

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    memory_id: str
    kind: Literal["decision", "fact", "procedure", "episode"] | Literal["censor"]
    detail: Literal["summary", "excerpt", "micro"]
    tokens: int
    score: float
    components: ScoreParts | None = None
    """What the score is made of; null in a compact manifest."""
    reason: (
        Literal["meaning", "words", "kind_best", "standout", "neighbour", "period", "linked"]
        | Literal["trigger", "relevant", "few"]
    )
    """Why it is in: `meaning` (at least half as similar as the build's most similar memory),
    `words` (more than half the best word match), `kind_best` (the most similar procedure,
    in a frame that calls for procedures), `standout` (far above the others of its kind),
    `neighbour` (next to a strong hit on the timeline), `period` (from the day or month
    the input names), `linked` (shares a name or rare term with a strong hit or the input:
    see `link`); a censor: `trigger` (the input holds its trigger), `relevant`, or `few`
    (the agent has at most three censors: all are shown).
    """
    link: LinkRead | None = None
    """What ties it to a strong hit or the input, when anything."""


class ContextRefreshRequest(BaseModel):
    """The conversation moved on: does the context still fit?"""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    context_id: str
    input: str
    decision_point: bool = False
    """The agent is about to act: rebuild for the decision."""
    budget: int | None = None
    """The room left now; a context that no longer fits is rebuilt smaller. With a session,
    the memory layers' budget (the window is kept); the session's own messages count on
    their own: its history is read as it is now.
    """


class ContextRefreshResponse(BaseModel):
    """ContextRefreshResponse"""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    refreshed: bool
    reasons: list[Literal["frame_switch", "topic_drift", "decision_point", "token_pressure"]]
    """`token_pressure`: the context is over the refresh's budget or, with a session, it, the
    messages the build returned and those appended since no longer fit the window's
    available tokens.
    """
    similarity: float | None
    """Of the new input to the built context."""
    frame: str
    """The frame the new input selects."""
    build: ContextBuildResponse | None
    delta: ContextDelta | None


class ContextWindow(BaseModel):
    """The whole prompt's tokens and their shares, named as seed 001 names them: the history
    gets what the reserves, the memory context and Past Learnings leave.
    """

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    total: int | None = None
    """Tokens of the whole chat request; more than system_reserve + tools_reserve (each as
    the build resolves it), or the build is refused naming the field.
    """
    system_reserve: int | None = None
    """Kept for your system prompt around the context."""
    tools_reserve: int | None = None
    """Kept for the tool definitions."""
    memory_fraction: float | None = None
    """Share of available (total less the reserves) for the memory layers."""
    learnings_fraction: float | None = None
    """Share of available for Past Learnings: the lessons of reviewed decisions and the
    procedures relevant to the input, in a section of their own after the memory layers;
    what they leave goes to the history. Together with memory_fraction at most 1.
    """
    fresh_tail: int | None = None
    """The last messages, kept verbatim whenever they fit."""
    sinks: int | None = None
    """The first messages, kept whenever they fit."""


class DecisionCreate(BaseModel):
    """A decision: what was chosen, why, against what, and how sure."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    source: str | None = None
    """Where the memory came from (a tool, a user, a document)."""
    metadata: dict[str, StoredJson] | None = None
    """Free-form JSON, filterable with `metadata=` on the list."""
    occurred_at: datetime | None = None
    """When it happened; an episode's defaults to its started_at, else its ended_at; else the
    time of writing.
    """
    kind: Literal["decision"]
    decision: str
    reasons: list[str] | None = None
    alternatives: list[str] | None = None
    context: str | None = None
    confidence: float = 0.5
    outcome: Literal["pending", "success", "partial", "failure"] = "pending"
    outcome_notes: str | None = None


class EffortCreate(BaseModel):
    """An effort to open: the messages appended to the session from now on belong to it."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    title: str
    """What the effort is about, in a few words."""
    goal: str | None = None
    """What it should achieve; its words help find it later."""


class EffortExpanded(BaseModel):
    """An expanded effort and its raw messages, back in working memory."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    effort: EffortRead
    messages: list[MessageRead]


class EffortFound(BaseModel):
    """An effort the search found: by its words (title, goal, summary), by its messages'
    meaning, or both.
    """

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    effort: EffortRead
    score: float
    """1 when the query names it, plus 1/(60 + rank) for each way it was found."""
    by: Literal["words", "meaning", "both"]
    similarity: float | None
    """Its closest message's cosine similarity to the query; null when found by its words alone."""


class EffortList(BaseModel):
    """A session's efforts, oldest first, at the session's current turn."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    session_id: str
    turn: int
    """The session's turn: the user messages appended to it."""
    items: list[EffortRead]


class EffortRead(BaseModel):
    """An effort of a session, and how it stands in working memory."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    effort_id: str
    """`e_{n}`: its id in the session, in URLs and in context."""
    title: str
    goal: str | None
    state: Literal["open", "concluded", "expanded"]
    """open: its messages are raw in context; concluded: its summary only; expanded: raw
    again until it goes CE_CONTEXT__EFFORTS__EXPANDED_DECAY_TURNS turns without a
    reference.
    """
    summary: str | None
    """Made in the background once concluded; null until then."""
    summary_method: Literal["extractive", "llm"] | None
    messages: int
    """Messages appended while it was open."""
    tokens: int
    """Their tokens, default encoding."""
    opened_turn: int
    """The session's turn (user messages) when opened."""
    concluded_turn: int | None
    expanded_turn: int | None
    last_referenced_turn: int
    """The last turn that opened, concluded, expanded or referred to it."""
    in_working_memory: bool
    """Whether a build now shows it (raw or by its summary); an evicted one is still
    searchable and expandable.
    """
    created_at: datetime
    concluded_at: datetime | None


class EffortSearchResult(BaseModel):
    """The session's efforts whose title, goal or summary hold the query's words, best first."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    query: str
    items: list[EffortFound]


class EffortUsed(BaseModel):
    """How a build showed one effort of its session."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    effort_id: str
    title: str
    state: Literal["open", "concluded", "expanded"]
    shown: Literal["raw", "summary", "evicted", "dropped"]
    """raw: its messages are in `messages` (as many as fit: messages_kept); summary: its line
    under `## Efforts` in `context`; evicted: not referenced for
    CE_CONTEXT__EFFORTS__SUMMARY_EVICTION_TURNS turns; dropped: its summary did not fit.
    """
    messages_kept: int
    last_referenced_turn: int


class EffortsUsed(BaseModel):
    """With a session that has efforts: its working memory in place of the whole history."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    turn: int
    """The session's turn: the user messages appended to it."""
    tokens: int
    """What `## Efforts` and `## Memory` added to `context` (in the promise)."""
    memory_note: bool
    """Whether `## Memory` says that older efforts exist and how to find them."""
    ambient_window: int
    ambient_from_seq: int
    """Messages outside efforts are in working memory from this seq on."""
    efforts: list[EffortUsed]


class EpisodeCreate(BaseModel):
    """Something that happened: a conversation, an incident, a session of work."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    source: str | None = None
    """Where the memory came from (a tool, a user, a document)."""
    metadata: dict[str, StoredJson] | None = None
    """Free-form JSON, filterable with `metadata=` on the list."""
    occurred_at: datetime | None = None
    """When it happened; an episode's defaults to its started_at, else its ended_at; else the
    time of writing.
    """
    kind: Literal["episode"]
    title: str | None = None
    summary: str | None = None
    """Your own summary; computed in the background when omitted."""
    detail: str
    started_at: datetime | None = None
    ended_at: datetime | None = None
    """When it ended, as given; not before `started_at`."""
    participants: list[str] | None = None


class ErasedRead(BaseModel):
    """A memory of the build erased since: its id, kind and when; its text is gone."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    memory_id: str
    kind: Literal["decision", "fact", "procedure", "episode"] | Literal["censor"]
    erased_at: datetime


class FactCreate(BaseModel):
    """Something known, with how much it is trusted."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    source: str | None = None
    """Where the memory came from (a tool, a user, a document)."""
    metadata: dict[str, StoredJson] | None = None
    """Free-form JSON, filterable with `metadata=` on the list."""
    occurred_at: datetime | None = None
    """When it happened; an episode's defaults to its started_at, else its ended_at; else the
    time of writing.
    """
    kind: Literal["fact"]
    content: str
    confidence: float = 0.8


class FoundMemory(BaseModel):
    """A memory the query finds: its score as a build ranks it, and why the gate let it in."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    memory_id: str
    kind: Literal["decision", "fact", "procedure", "episode"]
    state: str
    occurred_at: datetime
    score: float
    reason: Literal["meaning", "words", "kind_best", "standout", "neighbour", "period", "linked"]
    """Why it may take a place in a build: `meaning`, `words`, `kind_best`, `standout`,
    `neighbour`, `period` or `linked` (as a build's manifest says).
    """
    components: dict[str, float]
    """The parts of the score, as a build's."""
    summary: str
    excerpt: str | None
    """The passages of its full text around the query's words, when its summary holds none of
    them.
    """


class FrameDefinition(BaseModel):
    """An agent's own frame, or its changes to a built-in one; omitted fields are inherited."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    description: str | None = None
    questions: list[str] | None = None
    priorities: dict[str, float] | None = None
    default_budget: int | None = None
    examples: list[str] | None = None
    cues: list[str] | None = None
    recency: float | None = None
    """How much newer memories matter (scales the recency weight)."""


class FrameRead(BaseModel):
    """FrameRead"""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    name: str
    confidence: float
    source: Literal["requested", "selected"]
    scores: dict[str, float]


class FrameView(BaseModel):
    """A frame as the agent's contexts use it."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    name: str
    description: str
    questions: list[str]
    priorities: dict[str, float]
    default_budget: int
    examples: list[str]
    cues: list[str]
    recency: float
    builtin: bool
    customized: bool


class FunctionDefinition(BaseModel):
    """A function the model may call, as OpenAI's chat completions API takes it."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    name: str
    description: str
    parameters: dict[str, JsonValue]
    """JSON Schema of its arguments."""


class GateRead(BaseModel):
    """The relevance gate's bar in this build: a candidate is in by its meaning when at least
    `similarity_floor` similar to the input, by its words when it holds more than
    `min_word_share` of the best word match (other ways: see an item's `reason`).
    """

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    best_similarity: float
    similarity_floor: float
    min_word_share: float


class Health(BaseModel):
    """Health"""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    status: Literal["ok"] = "ok"


class HistoryEvent(BaseModel):
    """One thing that happened to a memory."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    at: datetime
    event: Literal["written", "embedded", "action", "retention"]
    name: str | None
    """The lifecycle action (`record_outcome`, `confirm`, …) or retention's rule
    (`episode_archived`, `forgotten`, …); none for written and embedded.
    """
    from_state: str | None
    to_state: str | None
    detail: str | None
    """The embedding model; retention's reason in words; none for an action."""
    changes: dict[str, JsonValue] | None
    """What an action changed besides the state (an outcome and its notes: `{from, to}`);
    retention's numbers.
    """
    restored_at: datetime | None = None
    """When a retention change was undone (`restore`)."""


class HistoryRead(BaseModel):
    """Which of the session's messages came with the context, and why the others did not."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    session_id: str
    messages_in_session: int
    fresh_tail: int
    """Messages kept as the fresh tail."""
    sinks: int
    """Messages kept as attention sinks (the first ones)."""
    kept: int
    """Messages of the session in `messages`: sinks, evictable ones, fresh tail (summaries
    besides).
    """
    evicted: int
    first_kept_seq: int | None
    """seq of the oldest message kept after the sinks; null when none is."""
    summaries: list[SummaryUsed]
    """In conversation order: the coarsest summaries of evicted messages before the first
    kept one, newest first while they fit (a share of the history's budget is kept for
    them; what they leave goes back to the evictable messages).
    """
    recalled: list[RecalledMessage]
    """In conversation order."""
    recalled_tokens: int
    """What the recalled section added to `context`: its tokens less totals.used (the memory
    layers') and the learnings layer's used.
    """
    shown_by_summary: list[int] | None = None
    """seqs of the long assistant and tool messages shown by their own summary (`[Summarized:
    n tokens] …`) because they did not fit whole; user messages never are.
    """
    tokens: int
    """Of `messages` as a chat request counts them in the target model's encoding: 3 per
    message, its role, content, name (+1) and tool_call_id, and 3 for the reply's priming.
    """
    efforts: EffortsUsed | None = None
    """With a session that has efforts: how each was shown; the history is then chosen from
    its working memory (see GET .../efforts). Absent without efforts.
    """
    window: WindowRead
    reason: str | None = None
    """Why sinks or fresh tail had to go, when they did: they did not fit."""


class Identity(BaseModel):
    """Who the agent is; always at the top of its context."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    name: str
    description: str | None = None
    traits: list[str] | None = None
    core_rules: list[str] | None = None


class InputEmbeddingRead(BaseModel):
    """Whether the search used the input's meaning; without its embedding, only its words."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    embedded: bool
    reason: str | None = None
    """Why not: the embeddings provider is down, gave no answer within
    CE_CONTEXT__EMBEDDING_DEADLINE_SECONDS, or failed.
    """
    rescored: bool = False
    """Whether the rescoring model (CE_EMBEDDINGS__RESCORE_MODEL) embedded the input, so that
    it judged the similarity of each candidate that has its vector (the others, written
    moments ago, by the search model's): false when none is set, or its vector of the
    input was not ready within the deadline.
    """


class Invalidate(BaseModel):
    """Fact: proven wrong; excluded from search."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    action: Literal["invalidate"]


class JobRead(BaseModel):
    """Background work on the memory and how it went."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    task: Literal["embed", "rescore", "summarize"]
    state: Literal["queued", "running", "done", "failed"]
    attempts: int
    last_error: str | None
    updated_at: datetime


class LayerRead(BaseModel):
    """A layer: its share of the budget, what it used, and what it holds. With a session, the
    last layer is `learnings` (Past Learnings): its budget is the window's learnings share
    and its `used` what the section added to `context`.
    """

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    name: str
    budget: int
    used: int
    items: list[ContextItem]


class LeftOut(BaseModel):
    """A candidate that did not make it, and why."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    memory_id: str
    kind: Literal["decision", "fact", "procedure", "episode"] | Literal["censor"]
    reason: Literal["budget", "score", "duplicate"]
    """`score`: the relevance gate let it in by none of its ways (see `gate`), for a censor:
    not relevant enough among the agent's censors; `budget`: no room was left;
    `duplicate`: a memory in the context says the same.
    """
    score: float
    components: ScoreParts | None = None
    """What the score is made of, as for an item."""


class LeftOutCounts(BaseModel):
    """How many candidates did not make it, by reason: all of them, where `left_out` lists
    the best few (none in a compact manifest).
    """

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    budget: int
    score: int
    duplicate: int


class LinkRead(BaseModel):
    """The anchor a memory shares with a strong hit of the build (or with its input)."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    anchor: str
    """The name or rare term they share, lower case."""
    memory_id: str | None
    """The hit it came through; null when the input itself names the anchor."""
    strength: float


class MarkPending(BaseModel):
    """Decision: the work is done and the outcome is awaited."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    action: Literal["mark_pending"]


class MemoryBatchCreate(BaseModel):
    """Several memories written together: all are stored or none."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    memories: list[
        Annotated[
            DecisionCreate | FactCreate | ProcedureCreate | EpisodeCreate | CensorCreate,
            Field(discriminator="kind"),
        ]
    ]


class MemoryBatchRead(BaseModel):
    """MemoryBatchRead"""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    memories: list[WrittenMemory]


class MemoryHistory(BaseModel):
    """A memory's history, oldest first, and where it stands now."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    memory_id: str
    agent_id: str
    kind: str
    state: str
    events: list[HistoryEvent]


class MemoryPage(BaseModel):
    """One page of memories, newest first; pass `next_cursor` as `cursor` for the next."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    items: list[MemoryRead]
    next_cursor: str | None


class MemoryPressure(BaseModel):
    """The agent's memories and full-text tokens in play (not forgotten, retired, invalid or
    superseded) after the run, and the limits (0: none).
    """

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    memories: int
    tokens: int
    max_memories: int
    max_tokens: int


class MemoryRead(BaseModel):
    """A memory: its fields, three representations with token counts, state and provenance."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    id: str
    agent_id: str
    kind: Literal["decision", "fact", "procedure", "episode", "censor"]
    state: str
    fields: dict[str, JsonValue]
    metadata: dict[str, JsonValue]
    confidence: float | None
    outcome: Literal["pending", "success", "partial", "failure"] | None
    superseded_by: str | None
    reference_count: int
    last_referenced_at: datetime | None
    representations: Representations
    provenance: Provenance


class MemoryRestored(BaseModel):
    """A forgotten memory back in the state it was forgotten from, and the change undone."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    memory_id: str
    kind: Literal["decision", "fact", "procedure", "episode", "censor"]
    state: Literal[
        "recorded",
        "pending",
        "reviewed",
        "new",
        "confirmed",
        "core",
        "superseded",
        "inactive",
        "active",
        "effective",
        "ineffective",
        "retired",
        "summarized",
        "archived",
        "created",
        "escalated",
        "forgotten",
    ]
    undone: RecordedChange


class MemorySearchResponse(BaseModel):
    """The memories a query finds, best first."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    query: str
    by_meaning: bool
    """False when the query could not be embedded in time: found by words alone."""
    memories: list[FoundMemory]


class MessageBatchCreate(BaseModel):
    """Messages appended in order to a session: all are stored or none."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    messages: list[Annotated[ChatMessageCreate | ToolMessageCreate, Field(discriminator="role")]]


class MessageBatchRead(BaseModel):
    """The messages as stored, and the session after the append."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    session: SessionRead
    messages: list[MessageRead]


class MessagePage(BaseModel):
    """One page of a session's messages, oldest first; pass `next_cursor` as `cursor` for the
    next.
    """

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    items: list[MessageRead]
    next_cursor: int | None


class MessageRead(BaseModel):
    """A stored message and its place in the conversation."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    id: str
    seq: int
    """Its position in the session: 0, 1, 2, … in appending order."""
    role: Literal["user", "assistant", "system", "tool"]
    content: str
    name: str | None
    tool_call_id: str | None
    created_at: datetime
    tokens: int
    """Tokens of `content` in the default encoding."""


class PremiseRead(BaseModel):
    """Something the input takes for granted that the agent's memory does not bear out."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    text: str
    """The premise as the input implies it: "the cluster crashed"."""
    status: Literal["unsupported", "contradicted"]
    """`unsupported`: memories are about its subject but none records it; `contradicted`: the
    memories that record it deny it, or it rests on a fact marked invalid or superseded.
    """
    memory_ids: list[str]
    """Unsupported: the memories about its subject; contradicted: those that deny it, or the
    invalid or superseded fact (and the one that replaced it).
    """
    note: str
    """The line about it at the end of `context`."""
    in_context: bool
    """Whether the note is in `context`: it is left out when it would take more than a tenth
    of the budget or the context with it would exceed the budget.
    """


class Problem(BaseModel):
    """An error as RFC 9457 problem details; members such as `allowed_actions` may follow."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    type: str
    """"about:blank": the status and title say what happened."""
    title: str
    status: int
    detail: str
    """What went wrong, and what to do about it."""
    instance: str
    """The path of the request."""
    errors: list[ProblemLocation] | None = None
    """For invalid input (422): each field at fault; in a 409 from an agent's window
    defaults: each of its fields in the conflict.
    """


class ProblemLocation(BaseModel):
    """One fault of an invalid request, or a stored field a request conflicts with."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    loc: list[str | int]
    """Where: `body`, `query`, `path` or `header`, then field names and indexes; in a 409,
    the stored field at fault (`agent`, `default_window`, `total`).
    """
    msg: str
    """What is wrong there."""
    type: str | None = None
    """pydantic's error type, when it found it."""


class ProcedureCreate(BaseModel):
    """How to do something: steps and the core patterns worth loading."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    source: str | None = None
    """Where the memory came from (a tool, a user, a document)."""
    metadata: dict[str, StoredJson] | None = None
    """Free-form JSON, filterable with `metadata=` on the list."""
    occurred_at: datetime | None = None
    """When it happened; an episode's defaults to its started_at, else its ended_at; else the
    time of writing.
    """
    kind: Literal["procedure"]
    name: str
    description: str
    steps: list[str] | None = None
    core_patterns: list[str] | None = None
    domain: str | None = None


class Provenance(BaseModel):
    """Provenance"""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    source: str | None
    created_at: datetime
    updated_at: datetime
    occurred_at: datetime
    embedding_model: str | None
    embedded_at: datetime | None
    rescore_model: str | None = None
    """The rescoring model whose vector of the memory builds rescore it with
    (CE_EMBEDDINGS__RESCORE_MODEL); none until the worker has computed it.
    """
    jobs: list[JobRead]


class Readiness(BaseModel):
    """Readiness"""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    status: Literal["ready"] = "ready"
    database: Literal["reachable"] = "reachable"
    migrations: Literal["at_head"] = "at_head"


class RecalledMessage(BaseModel):
    """An evicted message brought back into `context`, under "Earlier in this conversation",
    because it holds at least two of the input's words (its only one, when it has one), or
    its meaning is close to the input's (CE_CONTEXT__RECALL_MIN_SIMILARITY).
    """

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    seq: int
    role: Literal["user", "assistant", "system", "tool"]
    tokens: int
    """Of its line in `context`, newline included."""
    score: float
    """Its rank among the messages found: 1/(60 + rank) by its words' ts_rank plus 1/(60 +
    rank) by its similarity, for each way it was found.
    """
    by: Literal["words", "meaning", "both"] = "words"
    """How it was found."""
    similarity: float | None = None
    """Cosine similarity of its vector to the input's; null while it has no vector (embedded
    in the background) or the build has none (the embedder did not answer in time).
    """


class RecordActivation(BaseModel):
    """Procedure: used once, with its result. Censor: triggered once."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    action: Literal["record_activation"]
    success: bool | None = None
    """Required for procedures."""


class RecordFalsePositive(BaseModel):
    """Censor: triggered when it should not have."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    action: Literal["record_false_positive"]


class RecordOutcome(BaseModel):
    """Decision: log the outcome; a final outcome moves it to reviewed."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    action: Literal["record_outcome"]
    outcome: Literal["pending", "success", "partial", "failure"]
    notes: str | None = None


class RecordedChange(BaseModel):
    """A change as stored: when, as of when, and whether it was undone."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    memory_id: str
    kind: Literal["decision", "fact", "procedure", "episode", "censor"]
    rule: Literal[
        "episode_summarized",
        "episode_archived",
        "procedure_failing",
        "procedure_unused",
        "censor_idle",
        "fact_stale",
        "fact_fresh",
        "forgotten",
    ]
    """`episode_summarized`, `episode_archived` (by age); `procedure_failing`,
    `procedure_unused`, `censor_idle` (by their counters; they retire); `fact_stale`,
    `fact_fresh` (a fact's rank factor, no state change); `forgotten` (coordinated
    forgetting: past the agent's size limit, least salient first; restorable).
    """
    from_state: Literal[
        "recorded",
        "pending",
        "reviewed",
        "new",
        "confirmed",
        "core",
        "superseded",
        "inactive",
        "active",
        "effective",
        "ineffective",
        "retired",
        "summarized",
        "archived",
        "created",
        "escalated",
        "forgotten",
    ]
    to_state: Literal[
        "recorded",
        "pending",
        "reviewed",
        "new",
        "confirmed",
        "core",
        "superseded",
        "inactive",
        "active",
        "effective",
        "ineffective",
        "retired",
        "summarized",
        "archived",
        "created",
        "escalated",
        "forgotten",
    ]
    reason: str
    """Why, in words."""
    details: dict[str, JsonValue]
    """Why, in numbers: ages and thresholds; for `forgotten`, the salience, its parts, the
    limits and what was in play.
    """
    rank_factor: float | None = None
    """A fact's new rank factor (its share of its score in builds)."""
    change_id: int
    as_of: datetime
    """The `now` of the run that made it."""
    created_at: datetime
    restored_at: datetime | None = None


class Representation(BaseModel):
    """One detail level of a memory and its size in tokens."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    text: str
    tokens: int
    """Tokens in the default encoding."""
    tokens_by_encoding: dict[str, int]


class Representations(BaseModel):
    """Representations"""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    micro: Representation
    summary: SummaryRepresentation
    full: Representation


class RetentionChangePage(BaseModel):
    """Recorded changes, newest first."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    items: list[RecordedChange]
    next_cursor: int | None = None
    """Pass as `cursor` for the changes before these."""


class RetentionChangeRead(BaseModel):
    """One change to one memory and why."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    memory_id: str
    kind: Literal["decision", "fact", "procedure", "episode", "censor"]
    rule: Literal[
        "episode_summarized",
        "episode_archived",
        "procedure_failing",
        "procedure_unused",
        "censor_idle",
        "fact_stale",
        "fact_fresh",
        "forgotten",
    ]
    """`episode_summarized`, `episode_archived` (by age); `procedure_failing`,
    `procedure_unused`, `censor_idle` (by their counters; they retire); `fact_stale`,
    `fact_fresh` (a fact's rank factor, no state change); `forgotten` (coordinated
    forgetting: past the agent's size limit, least salient first; restorable).
    """
    from_state: Literal[
        "recorded",
        "pending",
        "reviewed",
        "new",
        "confirmed",
        "core",
        "superseded",
        "inactive",
        "active",
        "effective",
        "ineffective",
        "retired",
        "summarized",
        "archived",
        "created",
        "escalated",
        "forgotten",
    ]
    to_state: Literal[
        "recorded",
        "pending",
        "reviewed",
        "new",
        "confirmed",
        "core",
        "superseded",
        "inactive",
        "active",
        "effective",
        "ineffective",
        "retired",
        "summarized",
        "archived",
        "created",
        "escalated",
        "forgotten",
    ]
    reason: str
    """Why, in words."""
    details: dict[str, JsonValue]
    """Why, in numbers: ages and thresholds; for `forgotten`, the salience, its parts, the
    limits and what was in play.
    """
    rank_factor: float | None = None
    """A fact's new rank factor (its share of its score in builds)."""


class RetentionLimits(BaseModel):
    """The agent's own size limits for coordinated forgetting; null: the setting's."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    max_active_memories: int | None = None
    """Memories in play at most; 0: no limit."""
    max_active_tokens: int | None = None
    """Full-text tokens (default encoding) in play at most; 0: no limit."""


class RetentionLimitsRead(BaseModel):
    """The limits in force for the agent, and which of them are its own."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    agent_id: str
    max_active_memories: int
    max_active_tokens: int
    own: RetentionLimits
    """The agent's own limits; null: the setting's."""


class RetentionRun(BaseModel):
    """Run retention for one agent now, or as of a given time; a dry run changes nothing."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    now: datetime | None = None
    """The time to run as of (RFC 3339, with its offset); default: now. Ages and idle times
    count back from it.
    """
    dry_run: bool = False
    """Answer what would change; change nothing."""


class RetentionRunRead(BaseModel):
    """What a run changed (or, dry, would change), per memory, with the reason."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    agent_id: str
    now: datetime
    dry_run: bool
    changes: list[RetentionChangeRead]
    pressure: MemoryPressure


class Retire(BaseModel):
    """Procedure or censor: no longer in use."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    action: Literal["retire"]


class ScoreParts(BaseModel):
    """ScoreParts"""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    semantic: float
    lexical: float
    frame: float
    recency: float
    outcome: float
    usage: float
    confidence: float
    adjacency: float
    period: float = 0.0
    link: float = 0.0
    """How strongly an anchor it shares ties it to a strong hit or the input; for a censor,
    the share of its words one of the build's strongest hits holds.
    """
    retention: float = 1.0
    """The share of its score retention leaves it: below 1 for a fact never confirmed nor
    referenced for long (CE_RETENTION__FACT_STALE_FACTOR).
    """


class SessionPage(BaseModel):
    """One page of an agent's sessions, newest first; pass `next_cursor` as `cursor` for the
    next.
    """

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    items: list[SessionRead]
    next_cursor: str | None
    """`<microseconds since 1970 UTC>_<session_id>` of the page's last session; null on the
    last page.
    """


class SessionRead(BaseModel):
    """A session: its counts, tokens and summaries."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    session_id: str
    agent_id: str
    created_at: datetime
    updated_at: datetime
    """The time of the last append."""
    messages: int
    """Messages in the session."""
    tokens: int
    """Tokens of all its messages' contents, default encoding."""
    first_message_at: datetime | None
    """`created_at` of the first message (seq 0); null while the session has none (one opened
    by an effort).
    """
    last_message_at: datetime | None
    """`created_at` of the last message; null while the session has none."""
    summaries: list[SessionSummaryRead]
    """Summaries of older messages, computed in the background: coarsest first, then in
    conversation order.
    """


class SessionSummaryRead(BaseModel):
    """A summary standing for a span of older messages (summaries of summaries at depth > 1)."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    depth: int
    """1: of messages; d + 1: of depth-d summaries."""
    first_seq: int
    last_seq: int
    messages: int
    """How many messages it covers."""
    start: datetime
    """When the first message it covers was said."""
    end: datetime
    """When the last message it covers was said."""
    tokens: int
    """Tokens of its text in the default encoding."""
    method: Literal["extractive", "llm"]


class Summarize(BaseModel):
    """Episode: older; detail may be trimmed, the summary stays."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    action: Literal["summarize"]


class SummaryRepresentation(BaseModel):
    """SummaryRepresentation"""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    text: str
    tokens: int
    """Tokens in the default encoding."""
    tokens_by_encoding: dict[str, int]
    source: Literal["template", "extractive", "llm", "author"]
    """Who wrote the summary: a template, the extractive summarizer, the LLM, or you."""


class SummaryUsed(BaseModel):
    """A summary placed before the kept messages, after the sinks, as a system message: it
    stands for the evicted ones from `first_seq` to `last_seq` (depth 1: of messages, 2:
    of summaries, …).
    """

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    first_seq: int
    last_seq: int
    depth: int
    messages: int
    """Messages it covers."""
    tokens: int
    """What it adds to `messages`: its chat message's tokens."""
    quoted_seqs: list[int]
    """The messages whose sentences it quotes; empty for an LLM's summary."""


class Supersede(BaseModel):
    """Fact: replaced by a newer fact of the same agent."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    action: Literal["supersede"]
    superseded_by: str


class ToolCallRequest(BaseModel):
    """One tool call of the model: its arguments as the model wrote them."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    arguments: str | dict[str, StoredJson] | None = None
    """The tool's arguments: a JSON object, or the JSON-encoded object as the model returns
    it in `tool_calls[].function.arguments`. Each tool's definition (GET
    /agents/{agent_id}/tools) says which it takes; a field at fault answers 422 naming it
    under `arguments`.
    """
    tool_call_id: str | None = None
    """The model's `tool_calls[].id`: echoed, and the ready `message` answers it."""
    max_tokens: int | None = None
    """Tokens of `content` at most (the target model's tokenizer); CE_TOOLS__MAX_TOKENS when
    left out.
    """
    model: str | None = None
    """Count tokens as this model does; the agent's model when left out."""


class ToolDefinition(BaseModel):
    """One entry of a chat completions request's `tools`."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    type: Literal["function"] = "function"
    function: FunctionDefinition


class ToolMessage(BaseModel):
    """The result as the chat message that answers the tool call: append it as it is."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    role: Literal["tool"] = "tool"
    tool_call_id: str
    content: str


class ToolMessageCreate(BaseModel):
    """A tool's result, answering the assistant's tool call `tool_call_id`."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    content: str
    created_at: datetime | None = None
    """When it was said; defaults to the time of the append."""
    role: Literal["tool"]
    tool_call_id: str


class ToolReference(BaseModel):
    """Something the result shows: a memory, a session's message or an effort, by id."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    kind: Literal["memory", "message", "effort"]
    id: str


class ToolResult(BaseModel):
    """A tool's result: the text to hand back to the model, its tokens and what it shows."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    name: str
    tool_call_id: str | None
    content: str
    """The text for the model, within `max_tokens`."""
    tokens: int
    """Tokens of `content` in the target model's encoding."""
    max_tokens: int
    left_out: int
    """Results not shown: they did not fit `max_tokens`."""
    cut: bool
    """Whether the last result shown was shortened to fit."""
    references: list[ToolReference]
    """What `content` shows, in order; each counts as a reference to it."""
    message: ToolMessage | None
    """With a `tool_call_id`: the tool message to append to the conversation."""


class Totals(BaseModel):
    """The memory context's budget, where it came from (with a session: `window`, its memory
    share, unless the request names a `budget`), and its tokens.
    """

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    budget: int
    budget_source: Literal["request", "frame", "agent", "window"]
    used: int
    utilization: float
    encoding: str
    candidates: int


class WindowRead(BaseModel):
    """The window the build used (the request's fields over the agent's defaults over the
    settings), and how `available` was shared: the promise is `totals.used + the learnings
    layer's used + history.recalled_tokens + history.tokens <= available`, the first three
    being the tokens of `context`.
    """

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    total: int = 30000
    system_reserve: int = 2000
    tools_reserve: int = 2000
    memory_fraction: float = 0.15
    learnings_fraction: float = 0.05
    fresh_tail: int = 16
    sinks: int = 2
    available: int
    """total - system_reserve - tools_reserve."""
    memory_budget: int
    """The memory layers' budget (totals.budget)."""
    learnings_budget: int = 0
    """Past Learnings' budget: learnings_fraction of available, within what memory_budget
    leaves (the `learnings` layer's budget). 0 in builds stored before.
    """
    history_budget: int
    """available - the tokens of `context`: what the history got, with what the memory layers
    and Past Learnings did not use.
    """


class WorkingMemory(BaseModel):
    """What the agent is doing now; always in its context."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    current_task: str | None = None
    open_threads: list[str] | None = None


class WrittenMemory(BaseModel):
    """A memory as written: stored anew, or an active fact that the written one repeats."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    id: str
    agent_id: str
    kind: Literal["decision", "fact", "procedure", "episode", "censor"]
    state: str
    fields: dict[str, JsonValue]
    metadata: dict[str, JsonValue]
    confidence: float | None
    outcome: Literal["pending", "success", "partial", "failure"] | None
    superseded_by: str | None
    reference_count: int
    last_referenced_at: datetime | None
    representations: Representations
    provenance: Provenance
    written: Literal["created", "confirmed_existing"] = "created"
    """`confirmed_existing`: the fact says again what an active fact of the agent says; that
    fact was confirmed (its id is this one) and no copy was stored.
    """


JsonValue: TypeAlias = Json


StoredJson: TypeAlias = Json


CreateMemoryBody: TypeAlias = Annotated[
    DecisionCreate | FactCreate | ProcedureCreate | EpisodeCreate | CensorCreate,
    Field(discriminator="kind"),
]


UpdateMemoryBody: TypeAlias = Annotated[
    RecordOutcome
    | AmendOutcome
    | MarkPending
    | Confirm
    | Supersede
    | Invalidate
    | RecordActivation
    | RecordFalsePositive
    | Summarize
    | Archive
    | Retire,
    Field(discriminator="action"),
]


RunRetentionBody: TypeAlias = RetentionRun | None


IDEMPOTENT_WRITES: tuple[tuple[str, str], ...] = (
    ("POST", "/agents/{agent_id}/memories"),
    ("POST", "/agents/{agent_id}/memories/batch"),
    ("POST", "/agents/{agent_id}/sessions/{session_id}/messages"),
    ("POST", "/agents/{agent_id}/sessions/{session_id}/efforts"),
    ("POST", "/agents/{agent_id}/sessions/{session_id}/efforts/{effort_id}/conclude"),
    ("POST", "/agents/{agent_id}/sessions/{session_id}/efforts/{effort_id}/expand"),
    ("POST", "/context/build"),
    ("POST", "/context/refresh"),
    ("POST", "/context/expand"),
    ("POST", "/context/{context_id}/feedback"),
    ("POST", "/agents/{agent_id}/tools/{name}"),
    ("POST", "/agents/{agent_id}/retention/run"),
    ("POST", "/memories/{memory_id}/restore"),
)
