"""The speed benchmark's result, as written to bench/results/speed*.json, and its targets."""

from dataclasses import dataclass, field

from pydantic import JsonValue

from bench.common.results import Percentiles
from bench.common.sampling import MemoryPeaks

# The speed issue's targets on this 2-core machine with the local embedder: server-side p95 by
# size, client-side (over HTTP) p95 at 10,000, builds/s over HTTP at 16 concurrent clients,
# build / floor at every size, and a build with a session against the same build without.
TARGET_P95_MS = {10_000: 20.0, 100_000: 40.0}
TARGET_CLIENT_P95_MS = {10_000: 25.0}
TARGET_BUILDS_PER_SECOND = 100.0
TARGET_RATIO = 2.0
TARGET_SESSION_RATIO = 1.3


@dataclass(frozen=True)
class SizeStep:
    """Everything measured with the measured agent at one size."""

    size: int
    tenant_memories: int
    exact_search: bool
    added: int
    write_seconds: float
    writes_per_second: float
    embed_wait_seconds: float
    embeds_per_second: float
    lag_bulk_ms: Percentiles
    lag_idle_ms: Percentiles
    server_c1: Percentiles
    client_c1: Percentiles
    server_c16: Percentiles
    client_c16: Percentiles
    builds_per_second_c16: float
    stages_c1: dict[str, Percentiles]
    tokens_used_mean: float
    floor_ms: Percentiles
    floor_embed_ms: Percentiles
    floor_sql_ms: Percentiles
    floor_rows_mean: float
    ratio_p50: float
    ratio_p95: float
    memory_mib: MemoryPeaks
    # The floor whose text half asks for every word (bench/speed/floor.py); None in older results.
    floor_all_ms: Percentiles | None = None
    floor_all_sql_ms: Percentiles | None = None
    floor_all_rows_mean: float | None = None
    ratio_all_p50: float | None = None
    ratio_all_p95: float | None = None
    # The same builds with a session of SESSION_MESSAGES messages; None in older results.
    session_c1: Percentiles | None = None
    session_ratio_p50: float | None = None
    session_ratio_p95: float | None = None
    stages_session_c1: dict[str, Percentiles] | None = None
    # CPU ms per build at 16 clients: the API processes, PostgreSQL, the benchmark's client.
    cpu_ms_per_build_c16: dict[str, float] | None = None
    # The c=1 builds' inputs built again, and inputs appended to a session just before their
    # build (server ms); None in older results, where every input was new to the service.
    server_c1_seen: Percentiles | None = None
    server_c1_appended: Percentiles | None = None
    # The appends before those builds (client ms); None in older results.
    client_c1_append: Percentiles | None = None
    # The seen inputs built again: client ms; and with `manifest: compact` (server and client).
    client_c1_seen: Percentiles | None = None
    server_c1_compact: Percentiles | None = None
    client_c1_compact: Percentiles | None = None


@dataclass(frozen=True)
class SpeedResult:
    run: dict[str, JsonValue]
    seed: int
    budget: int
    agents: dict[str, int]
    steps: list[SizeStep]
    skipped_100k: bool
    other_cpu_share: float
    targets_p95: dict[int, float] = field(default_factory=lambda: dict(TARGET_P95_MS))
    target_builds_per_second: float = TARGET_BUILDS_PER_SECOND
    target_ratio: float = TARGET_RATIO
    targets_client_p95: dict[int, float] = field(default_factory=lambda: dict(TARGET_CLIENT_P95_MS))
    target_session_ratio: float = TARGET_SESSION_RATIO
