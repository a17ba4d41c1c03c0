"""The speed benchmark's tables, from its result (`results.py`)."""

from pydantic import JsonValue

from bench.common.results import Percentiles, table
from bench.speed.results import SizeStep, SpeedResult


def _ms(value: float) -> str:
    return f"{value:.1f}"


def _stages(stages: dict[str, Percentiles]) -> str:
    return ", ".join(f"{k} {v.p50:.1f}" for k, v in stages.items() if k != "total")


def tables(result: SpeedResult) -> str:
    """Load, latency, throughput, floor and memory by agent size."""
    steps = result.steps
    parts = [
        *_load_table(steps),
        "",
        *_latency_table(result, steps),
        "",
        *_floor_table(result, steps),
        "",
        *_session_table(result, steps),
        "",
        "Server-side stages at concurrency 1, p50 ms: "
        + "; ".join(f"{s.size:,}: {_stages(s.stages_c1)}" for s in steps),
    ]
    with_session = [s for s in steps if s.stages_session_c1]
    if with_session:
        parts.append(
            "With the session, p50 ms: "
            + "; ".join(f"{s.size:,}: {_stages(s.stages_session_c1 or {})}" for s in with_session)
        )
    parts += _seen_lines(steps)
    parts += _cpu_lines(steps, result.run.get("cores"))
    parts.append(
        f"Other processes on the machine used {result.other_cpu_share:.0%} of its CPU meanwhile."
    )
    if result.skipped_100k:
        parts.append("The 100,000-memory step was skipped (--skip-100k).")
    return "\n".join(parts)


def _load_table(steps: list[SizeStep]) -> list[str]:
    """Writes and embeddings per second, and the write-to-embedded lags."""
    return [
        "Loading through the batch API (writes/s as acknowledged; embeddings by the worker)",
        table(
            [
                "memories",
                "writes/s",
                "embeddings/s",
                "write→embedded p50 (bulk)",
                "p95 (bulk)",
                "write→embedded p50 (idle)",
            ],
            [
                [
                    f"{s.size:,}",
                    s.writes_per_second,
                    s.embeds_per_second,
                    f"{s.lag_bulk_ms.p50 / 1000:.1f} s",
                    f"{s.lag_bulk_ms.p95 / 1000:.1f} s",
                    f"{s.lag_idle_ms.p50:.0f} ms",
                ]
                for s in steps
            ],
        ),
    ]


def _latency_table(result: SpeedResult, steps: list[SizeStep]) -> list[str]:
    """Server and client latency at 1 and 16 clients, and builds/s at 16."""
    return [
        f"POST /context/build latency in ms (budget {result.budget}); target server p95: "
        + ", ".join(f"≤ {t:.0f} ms at {n:,}" for n, t in sorted(result.targets_p95.items()))
        + "; client p95: "
        + ", ".join(f"≤ {t:.0f} ms at {n:,}" for n, t in sorted(result.targets_client_p95.items()))
        + f"; builds/s at 16: ≥ {result.target_builds_per_second:.0f}",
        table(
            [
                "memories",
                "server p50",
                "p95",
                "p99",
                "client p50",
                "p95",
                "p99",
                "c16 server p50",
                "p95",
                "p99",
                "c16 client p50",
                "p95",
                "p99",
                "builds/s at 16",
            ],
            [
                [
                    f"{s.size:,}",
                    _ms(s.server_c1.p50),
                    _ms(s.server_c1.p95),
                    _ms(s.server_c1.p99),
                    _ms(s.client_c1.p50),
                    _ms(s.client_c1.p95),
                    _ms(s.client_c1.p99),
                    _ms(s.server_c16.p50),
                    _ms(s.server_c16.p95),
                    _ms(s.server_c16.p99),
                    _ms(s.client_c16.p50),
                    _ms(s.client_c16.p95),
                    _ms(s.client_c16.p99),
                    f"{s.builds_per_second_c16:.1f}",
                ]
                for s in steps
            ],
        ),
    ]


def _floor_table(result: SpeedResult, steps: list[SizeStep]) -> list[str]:
    """The floor (one embedding and one hybrid SQL query), build / floor, memory."""
    return [
        f"Floor (one query embedding + one hybrid SQL query) and build / floor; "
        f"target ratio ≤ {result.target_ratio:.0f}. Words: any of the input's (to_tsquery with |) "
        "or all of them (plainto_tsquery)",
        table(
            [
                "memories",
                "vector search",
                "embed p50",
                "SQL p50",
                "floor p50",
                "floor p95",
                "build/floor p50",
                "p95",
                "all words: SQL p50",
                "floor p50",
                "build/floor p50",
                "API RSS MiB",
                "PG RSS MiB",
                "PG PSS MiB",
            ],
            [
                [
                    f"{s.size:,}",
                    "exact" if s.exact_search else "HNSW",
                    _ms(s.floor_embed_ms.p50),
                    _ms(s.floor_sql_ms.p50),
                    _ms(s.floor_ms.p50),
                    _ms(s.floor_ms.p95),
                    f"{s.ratio_p50:.1f}",
                    f"{s.ratio_p95:.1f}",
                    _ms(s.floor_all_sql_ms.p50) if s.floor_all_sql_ms else "n/a",
                    _ms(s.floor_all_ms.p50) if s.floor_all_ms else "n/a",
                    f"{s.ratio_all_p50:.1f}" if s.ratio_all_p50 is not None else "n/a",
                    s.memory_mib.api_rss_mib,
                    s.memory_mib.postgres_rss_mib,
                    s.memory_mib.postgres_pss_mib,
                ]
                for s in steps
            ],
        ),
    ]


def _session_table(result: SpeedResult, steps: list[SizeStep]) -> list[str]:
    """The same builds with a session, beside those without."""
    return [
        "The same builds (concurrency 1) with a session of 200 scripted messages, server ms; "
        f"target: within {result.target_session_ratio} times the builds without one",
        table(
            ["memories", "without p50", "p95", "with session p50", "p95", "ratio p50", "p95"],
            [
                [
                    f"{s.size:,}",
                    _ms(s.server_c1.p50),
                    _ms(s.server_c1.p95),
                    _ms(s.session_c1.p50),
                    _ms(s.session_c1.p95),
                    f"{s.session_ratio_p50:.2f}",
                    f"{s.session_ratio_p95:.2f}",
                ]
                for s in steps
                if s.session_c1 is not None
                and s.session_ratio_p50 is not None
                and s.session_ratio_p95 is not None
            ],
        ),
    ]


def _seen_lines(steps: list[SizeStep]) -> list[str]:
    """Builds whose input the service saw before (built again, or appended to a session just
    before) beside those whose input is new, server ms at concurrency 1."""
    lines = []
    for s in steps:
        if s.server_c1_seen is None or s.server_c1_appended is None:
            continue
        seen, appended, new = s.server_c1_seen, s.server_c1_appended, s.server_c1
        lines.append(
            f"Inputs seen before, {s.size:,}: built again p50 / p95 {_ms(seen.p50)} / "
            f"{_ms(seen.p95)}, appended to a session just before {_ms(appended.p50)} / "
            f"{_ms(appended.p95)}; new inputs {_ms(new.p50)} / {_ms(new.p95)} "
            f"({new.p95 / max(seen.p95, 1e-6):.2f} times the seen p95; target ≤ 1.3)"
        )
        if s.client_c1_append is not None:
            append = s.client_c1_append
            lines.append(
                f"The appends before those builds, {s.size:,}: client p50 / p95 "
                f"{_ms(append.p50)} / {_ms(append.p95)}"
            )
        if s.client_c1_seen is not None:
            client = s.client_c1_seen
            lines.append(
                f"Built again, {s.size:,}: client p50 / p95 {_ms(client.p50)} / {_ms(client.p95)}"
            )
        if s.server_c1_compact is not None and s.client_c1_compact is not None:
            compact, client = s.server_c1_compact, s.client_c1_compact
            lines.append(
                f"Built again with a compact manifest, {s.size:,}: server p50 / p95 "
                f"{_ms(compact.p50)} / {_ms(compact.p95)}, client {_ms(client.p50)} / "
                f"{_ms(client.p95)}"
            )
    return lines


def _cpu_lines(steps: list[SizeStep], cores: JsonValue) -> list[str]:
    """The CPU a build at 16 clients costs, and the builds/s the machine's cores allow at that
    cost (the service's share only: the benchmark's client runs on the same cores)."""
    lines = []
    for s in steps:
        cpu = s.cpu_ms_per_build_c16
        if not cpu:
            continue
        service = cpu["api"] + cpu["postgres"]
        line = (
            f"CPU per build at 16 clients, {s.size:,}: API {cpu['api']:.1f} ms, PostgreSQL "
            f"{cpu['postgres']:.1f} ms, the benchmark's client {cpu['client']:.1f} ms"
        )
        if isinstance(cores, int) and service > 0:
            line += f"; {cores} cores allow at most {cores * 1000 / service:.0f} builds/s"
        lines.append(line)
    return lines
