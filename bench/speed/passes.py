"""The build passes at one size: new inputs at one client, the same again (seen), compact,
appended, 16 clients with the CPU they cost, and with a session."""

import asyncio
import itertools
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

from pydantic import JsonValue

from bench.common.client import ApiClient, ApiError
from bench.common.corpus import REFERENCE_TIME
from bench.common.ingest import progress
from bench.common.sampling import benchmark_cpu_seconds
from bench.common.server import Service
from bench.speed.inputs import appended_builds
from bench.speed.plan import (
    APPENDED,
    BUDGET,
    BUILDS_PER_CLIENT,
    CONCURRENT_CLIENTS,
    CPU_PARTS,
    MEASURED,
    QUERIES,
    SESSION,
    SESSION_MESSAGES,
    WINDOW,
)


def _request(query: str, session: bool = False, manifest: str = "full") -> dict[str, JsonValue]:
    request: dict[str, JsonValue] = {
        "agent_id": MEASURED,
        "input": query,
        "now": REFERENCE_TIME.isoformat(),
    }
    if manifest != "full":  # the default, and a field versions before it do not take
        request["manifest"] = manifest
    if session:
        return request | {"session_id": SESSION, "window": WINDOW}
    return request | {"budget": BUDGET}


async def _builds(
    api: ApiClient,
    queries: list[str],
    clients: int,
    per_client: int,
    desc: str,
    session: bool = False,
    manifest: str = "full",
) -> tuple[list[float], list[float], dict[str, list[float]], list[int], float]:
    """Server ms, client ms, stage ms, tokens used, and wall seconds of the builds."""
    server: list[float] = []
    client: list[float] = []
    stages: dict[str, list[float]] = defaultdict(list)
    used: list[int] = []
    bar = progress(clients * per_client, desc, "build")

    async def one_client(offset: int) -> None:
        for i in range(per_client):
            query = queries[(offset + i) % len(queries)]
            built, elapsed_ms = await api.build(_request(query, session, manifest))
            server.append(built.timings_ms["total"])
            client.append(elapsed_ms)
            used.append(built.totals.used)
            for stage, ms in built.timings_ms.items():
                stages[stage].append(ms)
            bar.update(1)

    started = time.perf_counter()
    await asyncio.gather(*(one_client(c * per_client) for c in range(clients)))
    wall = time.perf_counter() - started
    bar.close()
    return server, client, stages, used, wall


async def _compact_builds(
    api: ApiClient, queries: list[str]
) -> tuple[list[float], list[float]] | None:
    """Server and client ms of the seen inputs built with a compact manifest; none from a
    version without it."""
    try:
        server, client, _s, _u, _w = await _builds(
            api, queries, 1, len(queries), "c=1, seen, compact", manifest="compact"
        )
    except ApiError:
        return None
    return server, client


@dataclass(frozen=True)
class Passes:
    """What the build passes at one size measured (ms lists, by pass), and the inputs of the
    one-client pass (the floor searches for them too)."""

    queries: list[str]
    server1: list[float]
    client1: list[float]
    stages1: dict[str, list[float]]
    used: list[int]
    seen: list[float]
    seen_client: list[float]
    compact: tuple[list[float], list[float]] | None
    appended: list[float]
    appends: list[float]  # client ms of the appends before those builds
    server16: list[float]
    client16: list[float]
    wall16: float
    cpu_ms: dict[str, float]
    with_session: list[float]
    session_stages: dict[str, list[float]]


async def run_passes(service: Service, api: ApiClient, inputs: Iterator[str]) -> Passes:
    """Warm-up, then new inputs at one client, the same again (seen), compact, appended, 16
    clients (with the CPU they cost), and with a session."""

    def fresh(count: int) -> list[str]:  # inputs no build has had: each build embeds its own
        return list(itertools.islice(inputs, count))

    await _builds(api, fresh(20), 1, 20, "warm-up")
    queries = fresh(QUERIES)
    server1, client1, stages1, used, _wall = await _builds(api, queries, 1, len(queries), "c=1")
    seen, seen_client, _s, _u, _w = await _builds(api, queries, 1, len(queries), "c=1, seen before")
    compact = await _compact_builds(api, queries)
    appended, appends = await appended_builds(
        api, MEASURED, [_request(q) for q in fresh(APPENDED)], "c=1, appended"
    )
    cpu_before = _cpu_seconds(service)
    server16, client16, _s, _u, wall16 = await _builds(
        api,
        fresh(CONCURRENT_CLIENTS * BUILDS_PER_CLIENT),
        CONCURRENT_CLIENTS,
        BUILDS_PER_CLIENT,
        f"c={CONCURRENT_CLIENTS}",
    )
    cpu_ms = {
        part: round((after - before) * 1000 / len(server16), 1)
        for part, before, after in zip(CPU_PARTS, cpu_before, _cpu_seconds(service), strict=True)
    }
    with_session, _c, session_stages, _u, _w = await _builds(
        api, fresh(QUERIES), 1, QUERIES, f"c=1, session of {SESSION_MESSAGES}", session=True
    )
    return Passes(
        queries, server1, client1, stages1, used, seen, seen_client, compact, appended, appends,
        server16, client16, wall16, cpu_ms, with_session, session_stages,
    )  # fmt: skip


def _cpu_seconds(service: Service) -> tuple[float, float, float]:
    """CPU seconds used so far by the service's API processes, its PostgreSQL, and this
    benchmark (its HTTP client)."""
    return (*service.cpu_seconds(), benchmark_cpu_seconds())
