"""Settings: one pydantic-settings class with nested groups, read from CE_* variables and .env."""

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.core.processes import usable_cores
from app.providers.local_models import DEFAULT_LOCAL_MODEL, local_model

# A window's bounds on the messages it always keeps.
MAX_FRESH_TAIL = 1_000
MAX_SINKS = 100


class DatabaseSettings(BaseModel):
    """Where the data lives: a PostgreSQL URL, or the embedded server when none is set."""

    url: SecretStr | None = None
    pool_size: int = Field(default=10, ge=1)
    max_overflow: int = Field(default=10, ge=0)
    embedded_name: str = "context_engine"


class EmbeddingSettings(BaseModel):
    """The embedding provider: a local model run offline, or an OpenAI-compatible endpoint."""

    provider: Literal["local", "openai"] = "local"
    # local: a model of app/providers/local_models.py (all-MiniLM-L6-v2 or multilingual-e5-small);
    # openai: the model asked of the endpoint.
    model: str = DEFAULT_LOCAL_MODEL
    # For a local model, its own size unless set (and then it must match).
    dimensions: int = Field(
        default=384, ge=1, le=2000, description="pgvector's HNSW index takes at most 2,000."
    )
    base_url: str | None = None
    api_key: SecretStr | None = None
    timeout_seconds: float = Field(default=30.0, gt=0)
    batch_size: int = Field(default=64, ge=1, le=2048)
    # Local model runs side by side in one process; unset: the machine's cores shared out
    # among the API's processes (CE_API__WORKERS), at least one each.
    threads: int | None = Field(default=None, ge=1, le=64)
    # A different model of the same dimension found at start: re-embed everything in the
    # background instead of refusing to start.
    reembed_on_model_change: bool = False
    # The vectors of this many recent inputs are kept (app/providers/query_vectors.py): a build
    # whose input was appended to its session or built before finds it embedded; 0: none kept.
    query_cache_size: int = Field(default=4096, ge=0, le=1_000_000)
    # Where `python -m app prepare-model` puts the models it converts (all-mpnet-base-v2);
    # unset: the environment's share/context-engine/models.
    models_dir: Path | None = None
    # A second, stronger local model (all-mpnet-base-v2): the worker gives every memory its
    # vector too, after the first; a build finds candidates by it as well (an exact scan, on
    # agents up to exact_search_max_memories) and judges them by it
    # (app/context/retrieval/search.py).
    # Unset: one model does both, and the second vectors are dropped at the next start.
    rescore_model: str | None = None

    @model_validator(mode="after")
    def _local_model_dimensions(self) -> "EmbeddingSettings":
        if self.rescore_model is not None:
            local_model(self.rescore_model)  # a local model, or the error naming the choices
            if self.rescore_model == self.model:
                raise ValueError(
                    f"CE_EMBEDDINGS__RESCORE_MODEL is the search model {self.model!r} already; "
                    "unset it, or name a stronger local model such as all-mpnet-base-v2"
                )
        if self.provider != "local":
            return self
        model = local_model(self.model)
        if "dimensions" not in self.model_fields_set:
            self.dimensions = model.dimensions
        elif self.dimensions != model.dimensions:
            raise ValueError(
                f"the local model {model.name} has {model.dimensions} dimensions; unset "
                f"CE_EMBEDDINGS__DIMENSIONS or set it to {model.dimensions}"
            )
        return self


class BreakerSettings(BaseModel):
    """When calls to a failing provider pause, and for how long (each provider its own)."""

    failures_to_open: int = Field(default=3, ge=1)
    first_pause_seconds: float = Field(default=1.0, gt=0)
    max_pause_seconds: float = Field(default=30.0, gt=0)

    @model_validator(mode="after")
    def _first_within_max(self) -> "BreakerSettings":
        if self.first_pause_seconds > self.max_pause_seconds:
            raise ValueError(
                "CE_BREAKER__FIRST_PAUSE_SECONDS must not exceed CE_BREAKER__MAX_PAUSE_SECONDS"
            )
        return self


class LlmSettings(BaseModel):
    """The OpenAI-compatible chat model used for background summaries; off without a model."""

    model: str | None = None
    base_url: str | None = None
    api_key: SecretStr | None = None
    timeout_seconds: float = Field(default=60.0, gt=0)
    summary_min_tokens: int = Field(default=120, ge=1)


class TokenizerSettings(BaseModel):
    """How tokens are counted for models tiktoken does not know."""

    default_encoding: Literal["o200k_base", "cl100k_base"] = "o200k_base"


class ApiSettings(BaseModel):
    """Limits of the HTTP API."""

    max_body_bytes: int = Field(default=1_048_576, ge=1024)
    batch_max_items: int = Field(default=100, ge=1)
    # Processes serving the API (`serve --workers N` sets it too), by default one per core the
    # service may use: each runs the job worker unless CE_WORKER__IN_PROCESS=false, and its
    # embedder runs on its share of the cores.
    workers: int | None = Field(default=None, ge=1, le=64)
    page_size_default: int = Field(default=50, ge=1)
    page_size_max: int = Field(default=200, ge=1)

    def processes(self) -> int:
        """How many processes `serve` runs: as set, else one per core."""
        return self.workers or usable_cores()

    @model_validator(mode="after")
    def _default_within_max(self) -> "ApiSettings":
        if self.page_size_default > self.page_size_max:
            raise ValueError("CE_API__PAGE_SIZE_DEFAULT must not exceed CE_API__PAGE_SIZE_MAX")
        return self


class WorkerSettings(BaseModel):
    """The background queue that computes embeddings and LLM summaries."""

    in_process: bool = True
    poll_interval_seconds: float = Field(default=1.0, gt=0)
    batch_size: int = Field(default=32, ge=1)
    # Batches in flight at once: one is written to the database while the next is computed.
    concurrency: int = Field(default=2, ge=1, le=16)
    # Attempts at a job that keeps failing for a reason of its own (the provider rejects it, or
    # a bug); a provider that is down or slow is waited for without limit.
    max_attempts: int = Field(default=8, ge=1)
    backoff_base_seconds: float = Field(default=2.0, gt=0)
    backoff_max_seconds: float = Field(default=60.0, gt=0)
    # A claimed job is the worker's while it renews the lease (every third of it); a job whose
    # lease ran out is taken over by another worker.
    lease_seconds: float = Field(default=10.0, ge=1)
    analyze_after_jobs: int = Field(default=500, ge=0)

    @model_validator(mode="after")
    def _base_within_max(self) -> "WorkerSettings":
        if self.backoff_base_seconds > self.backoff_max_seconds:
            raise ValueError(
                "CE_WORKER__BACKOFF_BASE_SECONDS must not exceed CE_WORKER__BACKOFF_MAX_SECONDS"
            )
        return self


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


class ToolSettings(BaseModel):
    """The tools an LLM calls through the service (`app.tools`)."""

    # Tokens of a tool's result when the call does not say (`max_tokens`).
    max_tokens: int = Field(default=1_000, ge=64, le=100_000)
    # Results of each kind search_memory returns when the model gives no `limit`.
    search_limit: int = Field(default=5, ge=1, le=20)


class RetentionSettings(BaseModel):
    """Forgetting over time (`app.retention`): lifecycles by age and use, and the size limit
    past which an agent's least salient memories are deactivated. Days count back from a run's
    `now`; 0 turns a rule or limit off."""

    # The worker queues every agent's run this often (at most one waits or runs per agent).
    interval_seconds: float = Field(default=3600.0, ge=1)
    scheduled: bool = True
    episode_summarize_days: float = Field(default=30.0, ge=0)
    episode_archive_days: float = Field(default=90.0, ge=0)
    # A procedure activated at least this often and failing more often than it succeeds retires.
    procedure_min_activations: int = Field(default=5, ge=1)
    procedure_unused_days: float = Field(default=180.0, ge=0)
    # A warn censor never triggered this long after it was written retires (block ones never).
    censor_idle_days: float = Field(default=365.0, ge=0)
    # A fact never confirmed nor referenced this long ranks at `fact_stale_factor` of its score.
    fact_stale_days: float = Field(default=180.0, ge=0)
    fact_stale_factor: float = Field(default=0.5, gt=0, le=1)
    # Coordinated forgetting: past either limit, the least salient memories are deactivated
    # until the agent is back at `forget_to` of it (rounded up).
    max_active_memories: int = Field(default=10_000, ge=0)
    max_active_tokens: int = Field(default=2_000_000, ge=0)
    forget_to: float = Field(default=0.9, gt=0, le=1)
    salience_half_life_days: float = Field(default=30.0, gt=0)


class Settings(BaseSettings):
    """Every setting of the service; see .env.example for each one."""

    model_config = SettingsConfigDict(
        env_prefix="CE_",
        env_nested_delimiter="__",
        env_file=".env",
        env_ignore_empty=True,  # CE_DATABASE__URL= means unset, not an empty URL
        extra="ignore",
    )

    data_dir: Path = Path(".data")
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    log_json: bool = False
    access_log: bool = True  # a line per request (`http.request`)
    database: DatabaseSettings = DatabaseSettings()
    embeddings: EmbeddingSettings = EmbeddingSettings()
    llm: LlmSettings = LlmSettings()
    breaker: BreakerSettings = BreakerSettings()
    tokenizer: TokenizerSettings = TokenizerSettings()
    api: ApiSettings = ApiSettings()
    worker: WorkerSettings = WorkerSettings()
    context: ContextSettings = ContextSettings()
    tools: ToolSettings = ToolSettings()
    retention: RetentionSettings = RetentionSettings()


def get_settings() -> Settings:
    """Read settings from the environment; call only at entry points."""
    return Settings()
