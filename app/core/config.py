"""Settings: one pydantic-settings class with nested groups, read from CE_* variables and .env."""

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.core.context_config import ContextSettings
from app.core.processes import usable_cores
from app.providers.local_models import DEFAULT_LOCAL_MODEL, local_model


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
