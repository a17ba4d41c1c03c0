"""Settings of context building (`CE_CONTEXT__*`): the ranking's weights, the window of a
build with a session, span summaries, efforts, associative links and the build's own limits.
A group of `app.core.config.Settings`."""

from pydantic import BaseModel, ConfigDict, Field, model_validator

# A window's bounds on the messages it always keeps.
MAX_FRESH_TAIL = 1_000
MAX_SINKS = 100


class RankingWeights(BaseModel):
    """Weights of a candidate's composite score (seed 009), plus the lexical, adjacency and
    period signals: the only place they and their defaults are written."""

    model_config = ConfigDict(frozen=True)

    semantic: float = Field(default=0.50, ge=0)
    frame: float = Field(default=0.15, ge=0)
    recency: float = Field(default=0.15, ge=0)
    outcome: float = Field(default=0.10, ge=0)
    usage: float = Field(default=0.05, ge=0)
    confidence: float = Field(default=0.05, ge=0)
    lexical: float = Field(default=0.25, ge=0)
    adjacency: float = Field(default=0.20, ge=0)
    period: float = Field(default=0.15, ge=0)  # a day or month the input names
    link: float = Field(default=0.20, ge=0)  # shares an anchor with a strong hit or the input


def window_error(
    total: int,
    system_reserve: int,
    tools_reserve: int,
    memory_fraction: float,
    learnings_fraction: float,
) -> tuple[str, str] | None:
    """The field of a window at fault and why, or None: the reserves must leave at least one
    token, and the memory and learnings fractions together at most all of them."""
    available = total - system_reserve - tools_reserve
    if available < 1:
        return "total", (
            f"total {total} - system_reserve {system_reserve} - tools_reserve {tools_reserve} "
            f"leaves {available} tokens; at least 1 must be left for the context and history"
        )
    if memory_fraction + learnings_fraction > 1:
        return "learnings_fraction", (
            f"memory_fraction {memory_fraction} + learnings_fraction {learnings_fraction} exceeds 1"
        )
    return None


class WindowSettings(BaseModel):
    """A build's window when it has a session and the request does not say (seed 001's
    TokenBudget): the whole prompt's tokens, the reserves, and the shares of what is left."""

    # Tokens of the whole prompt: system prompt, tool definitions, context and history.
    total: int = Field(default=30_000, ge=1, le=10_000_000)
    # Kept for the client's own system prompt, around the context.
    system_reserve: int = Field(default=2_000, ge=0, le=10_000_000)
    # Kept for the tool definitions sent with the chat request.
    tools_reserve: int = Field(default=2_000, ge=0, le=10_000_000)
    # Share of what is left (available) the memory layers may take.
    memory_fraction: float = Field(default=0.15, ge=0, le=1)
    # Share of available for Past Learnings (lessons of reviewed decisions, procedures).
    learnings_fraction: float = Field(default=0.05, ge=0, le=1)
    # The last messages, kept verbatim whenever they fit.
    fresh_tail: int = Field(default=16, ge=0, le=MAX_FRESH_TAIL)
    # The first messages (attention sinks: usually the instructions), kept whenever they fit.
    sinks: int = Field(default=2, ge=0, le=MAX_SINKS)

    @model_validator(mode="after")
    def _leaves_room(self) -> "WindowSettings":
        error = window_error(
            self.total,
            self.system_reserve,
            self.tools_reserve,
            self.memory_fraction,
            self.learnings_fraction,
        )
        if error is not None:
            raise ValueError(f"CE_CONTEXT__WINDOW__{error[0].upper()}: {error[1]}")
        return self


class SummarySettings(BaseModel):
    """Summaries of a session's older messages, made in the background (`app.sessions.spans`)."""

    # Depth 1 summarizes aligned blocks of this many messages: seqs [0, span), [span, 2 span) ...
    span: int = Field(default=20, ge=2, le=1000)
    # Depth d + 1 summarizes this many consecutive depth-d summaries.
    fanout: int = Field(default=5, ge=2, le=100)
    # The tokens of a summary's text at most, at every depth: coarser ones compress more.
    max_tokens: int = Field(default=160, ge=16, le=4000)
    # Summaries one job makes at most before it queues the session's next one.
    per_job: int = Field(default=20, ge=1, le=1000)
    # Share of the history's budget kept for summaries when messages were evicted; what they
    # do not use goes back to the evictable messages.
    share: float = Field(default=0.2, ge=0, le=1)
    # An assistant's or tool's message longer than this gets a summary of its own (depth 0),
    # shown in its place in a build when it does not fit whole; 0: none.
    long_message_tokens: int = Field(default=400, ge=0)


class EffortSettings(BaseModel):
    """Efforts of a session (`app.efforts`): when their raw messages and summaries leave the
    working memory of a build. A turn is a user message appended to the session."""

    # A concluded effort's summary stays in working memory this many turns after the turn of
    # its last reference; then it is evicted (still listed and searchable).
    summary_eviction_turns: int = Field(default=20, ge=0, le=100_000)
    # An expanded effort's raw messages collapse back to its summary on the turn that makes
    # this many turns without a reference.
    expanded_decay_turns: int = Field(default=3, ge=1, le=100_000)
    # A just-concluded effort's summary stays at least this many turns, referenced or not.
    concluded_grace_turns: int = Field(default=20, ge=0, le=100_000)
    # Ambient messages (outside efforts) kept in working memory: the last this many
    # exchanges, each from a user message to the next.
    ambient_window: int = Field(default=10, ge=0, le=10_000)
    # A message refers to an effort when it names its id or holds this many of its keywords.
    reference_keywords: int = Field(default=2, ge=1, le=20)
    # An effort's keywords: the words of its title and goal, and this many of its summary's
    # most frequent words.
    keywords_max: int = Field(default=10, ge=0, le=100)
    # The tokens of an effort's summary at most.
    summary_max_tokens: int = Field(default=80, ge=16, le=4000)
    # The efforts' search finds an effort by meaning when one of its messages is at least this
    # similar to the query (not measured: between recall's 0.55 and the memories' gate, 0.2).
    search_min_similarity: float = Field(default=0.45, ge=0, le=1)


class LinkSettings(BaseModel):
    """Associative recall (`app.context.retrieval.links`): the memories that share a name or a rare
    term (an anchor) with a build's strongest hits, or with its input, come in as candidates."""

    # The strongest admitted hits whose anchors spread; 0: no associative recall.
    seeds: int = Field(default=5, ge=0, le=50)
    # How strongly the input's own anchors spread (the strongest hit's is 1).
    input_strength: float = Field(default=0.5, ge=0, le=1)
    # A memory is in by a link at least this strong: its hit's similarity to the input as a
    # share of the most similar hit's, over the square root of how many other memories hold
    # the anchor (a name the hit shares with one other memory ties it fully); the strongest
    # `max_linked` of a build at most.
    min_link: float = Field(default=0.45, ge=0, le=1)
    max_linked: int = Field(default=3, ge=0, le=50)
    # An anchor in more of the agent's memories than this ties nothing together.
    max_anchor_memories: int = Field(default=8, ge=2, le=1000)
    # At most this many linked memories are read in a build, at each hop.
    limit: int = Field(default=5, ge=1, le=500)
    # The ties of a second hop start from the memories the first tied in, this much weaker.
    hops: int = Field(default=2, ge=1, le=2)
    hop_decay: float = Field(default=0.5, ge=0, le=1)


class ContextSettings(BaseModel):
    """Context assembly: budgets, search sizes, ranking weights and refresh triggers."""

    default_budget: int = Field(default=8000, ge=1)
    # A build waits this long for its input's embedding, then finds memories by words alone.
    embedding_deadline_seconds: float = Field(default=1.0, gt=0)
    vector_candidates: int = Field(default=60, ge=1, le=1000)
    text_candidates: int = Field(default=60, ge=1, le=1000)
    exact_search_max_memories: int = Field(default=2_000, ge=0)
    common_word_memories: int = Field(default=500, ge=1)
    # A word match counts in full when it weighs as much as the input's this many rarest
    # searched words together (and is the best match); 0: when it is the best match.
    word_match_terms: int = Field(default=2, ge=0, le=10)
    neighbour_hits: int = Field(default=5, ge=0, le=50)
    neighbour_hits_max: int = Field(default=20, ge=0, le=50)
    neighbour_window: int = Field(default=2, ge=0, le=10)
    # Neighbours are parts of the hit's own conversation: while it lasted, or at most this long
    # before or after it.
    neighbour_gap_minutes: float = Field(default=30.0, gt=0)
    # The relevance gate (`app.context.selection.gate`): a memory is in by its meaning when at least
    # `similarity_share` as similar as the build's best and `min_similarity`; by its words when
    # it holds more than `min_word_share` of the best word match; or when it stands out
    # `standout_sigmas` above the other candidates of its kind.
    min_similarity: float = Field(default=0.2, ge=0, le=1)
    similarity_share: float = Field(default=0.5, ge=0, le=1)
    min_word_share: float = Field(default=0.5, ge=0, lt=1)
    standout_sigmas: float = Field(default=3.0, gt=0)
    duplicate_similarity: float = Field(default=0.95, gt=0, le=1.01)
    summary_share: float = Field(default=0.5, gt=0, le=1)
    drift_threshold: float = Field(default=0.5, ge=0, le=1)
    half_life_days: float = Field(default=30.0, gt=0)
    weights: RankingWeights = RankingWeights()
    window: WindowSettings = WindowSettings()
    # With a session: at most this many learnings in "Past Learnings" (seed 001: up to 5).
    learnings_max: int = Field(default=5, ge=0, le=50)
    # With a session: at most this many evicted messages the input clearly refers to come back
    # into the context (`app.context.history.recall`); 0: none.
    recall_max: int = Field(default=3, ge=0, le=20)
    # ...and an evicted message comes back by its meaning when its vector is at least this
    # similar to the input's (stricter than `min_similarity`: it costs the history room).
    recall_min_similarity: float = Field(default=0.55, ge=0, le=1)
    # The premise check (`app.context.premises.check`): what the input takes for granted, held
    # against the memories found; a premise they do not bear out is in the manifest and noted.
    premise_check: bool = True
    # A memory at least this similar to the input that says a premise's event bears it out,
    # whatever its other words.
    premise_support_similarity: float = Field(default=0.6, ge=0, le=1.01)
    summaries: SummarySettings = SummarySettings()
    efforts: EffortSettings = EffortSettings()
    links: LinkSettings = LinkSettings()
