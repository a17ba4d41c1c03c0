"""The bounded part of the conversation benchmark: a scripted session of 5,000 messages appended
turn by turn, a build at an 8,000-token window after each turn; tokens against the window,
latency by session length, summaries made and the background queue meanwhile."""

import time
from collections.abc import Sequence
from datetime import datetime, timedelta

from pydantic import JsonValue

from app.providers.tokenizer import TokenCounter
from bench.common.client import ApiClient
from bench.common.corpus import CorpusGenerator
from bench.common.ingest import progress, wait_for_background, write_in_order
from bench.common.queue_metrics import QueueSample, queue_stats, read_queue
from bench.common.results import percentiles
from bench.common.script import ScriptTurn, script
from bench.conversation.history_check import session_build
from bench.conversation.results import (
    BoundedResult,
    LengthBucket,
    PairedLatency,
    SessionBuild,
    build_series,
    latency_ratios,
    token_checks,
)

SEED = 20261123
AGENT = "atlas"
SESSION = "on-call"
MEMORIES = 300
# Seed 001's shares on an 8,000-token window: a system prompt of up to 1,000 tokens and tool
# definitions of up to 500 around the context; memories and learnings a fifth of the rest.
TOTAL, SYSTEM_RESERVE, TOOLS_RESERVE = 8_000, 1_000, 500
AVAILABLE = TOTAL - SYSTEM_RESERVE - TOOLS_RESERVE
WINDOW: dict[str, JsonValue] = {
    "total": TOTAL,
    "system_reserve": SYSTEM_RESERVE,
    "tools_reserve": TOOLS_RESERVE,
    "memory_fraction": 0.15,
    "learnings_fraction": 0.05,
    "fresh_tail": 16,
    "sinks": 2,
}
BUCKETS = (100, 500, 1_000, 2_000, 3_000, 4_000, 5_000)
BUCKET_WIDTH = 100  # a bucket holds the builds of the last 100 messages up to its length
SAMPLE_EVERY = 25  # turns between two readings of the session and of /metrics
WARM_UP_BUILDS = 10
# The latency ratio measured again at the end: the same inputs on the whole session and on a copy
# of its first 100 messages, one build on each in turn.
SHORT_SESSION = "on-call-first-100"
PAIRED_SHORT = 100
PAIRED_BUILDS = 60
LAST_INPUT = "Anything else I should hand over to the next person on call?"


def _request(user_text: str, after: str, session_id: str = SESSION) -> dict[str, JsonValue]:
    """The build before the assistant answers `user_text`, 30 s after the last message."""
    now = datetime.fromisoformat(after) + timedelta(seconds=30)
    return {
        "agent_id": AGENT,
        "input": user_text,
        "session_id": session_id,
        "window": WINDOW,
        "now": now.isoformat(),
    }


async def _prepare(api: ApiClient) -> None:
    """The agent, its memories (embedded before the session starts), and a few warm-up builds
    on a session of their own, so the first measured builds do not pay for a cold service."""
    await api.put_agent(AGENT, "Atlas, the platform team's on-call assistant")
    bodies = list(CorpusGenerator(SEED).memories(MEMORIES))
    with progress(len(bodies), "write memories", "mem") as bar:
        await write_in_order(api, AGENT, bodies, bar)
    await wait_for_background(api, "embed memories")
    warm = script(SEED + 1, 13)
    for turn in warm:
        await api.append_messages(AGENT, "warm-up", list(turn.messages))
    for _ in range(WARM_UP_BUILDS):
        await api.build(_request(warm[-1].user_text, _last_time(warm[-1]), "warm-up"))


def _last_time(turn: ScriptTurn) -> str:
    return str(turn.messages[-1]["created_at"])


async def _one_build(
    api: ApiClient, counter: TokenCounter, user_text: str, after: str, session_id: str = SESSION
) -> SessionBuild:
    built, client_ms = await api.build(_request(user_text, after, session_id))
    return session_build(counter, built, client_ms)


async def _sample(api: ApiClient, started: float) -> tuple[QueueSample, int]:
    """The queue on /metrics and the summaries the session lists, now."""
    sample = read_queue(await api.metrics(), time.perf_counter() - started)
    return sample, len((await api.get_session(AGENT, SESSION)).summaries)


def buckets(builds: Sequence[SessionBuild], length: int) -> list[LengthBucket]:
    """Latency and tokens of the builds of the last BUCKET_WIDTH messages up to each bucket's
    session length (the buckets up to `length`, and `length` itself)."""
    ends = [*(b for b in BUCKETS if b < length), length]
    result = []
    for end in ends:
        inside = [b for b in builds if end - BUCKET_WIDTH < b.messages <= end]
        result.append(
            LengthBucket(
                messages=end,
                builds=len(inside),
                server_ms=percentiles([b.server_ms for b in inside]),
                client_ms=percentiles([b.client_ms for b in inside]),
                tokens_max=max((b.context + b.history for b in inside), default=0),
                stages_p50_ms=_stage_medians(inside),
            )
        )
    return result


def _stage_medians(builds: Sequence[SessionBuild]) -> dict[str, float]:
    stages = dict.fromkeys(stage for b in builds for stage in b.stages_ms)
    return {
        stage: percentiles([b.stages_ms[stage] for b in builds if stage in b.stages_ms]).p50
        for stage in stages
    }


async def _paired(api: ApiClient, counter: TokenCounter, turns: list[ScriptTurn]) -> PairedLatency:
    """The last turns' inputs built in turn on the whole session and on a copy of its first
    turns up to PAIRED_SHORT messages: the latency ratio with the machine's load alike."""
    short = 0
    for turn in turns:
        if short >= PAIRED_SHORT:
            break
        await api.append_messages(AGENT, SHORT_SESSION, list(turn.messages))
        short += len(turn.messages)
    after = _last_time(turns[-1])
    inputs = [turn.user_text for turn in turns[-PAIRED_BUILDS:]]
    long_builds, short_builds = [], []
    with progress(len(inputs), "paired builds", "pair") as bar:
        for text in inputs:
            long_builds.append(await _one_build(api, counter, text, after))
            short_builds.append(await _one_build(api, counter, text, after, SHORT_SESSION))
            bar.update(1)
    timings = [
        (percentiles([b.server_ms for b in side]), percentiles([b.client_ms for b in side]))
        for side in (short_builds, long_builds)
    ]
    return PairedLatency(
        short_messages=short,
        long_messages=sum(len(turn.messages) for turn in turns),
        builds=len(inputs),
        short_server_ms=timings[0][0],
        long_server_ms=timings[1][0],
        short_client_ms=timings[0][1],
        long_client_ms=timings[1][1],
        ratio=latency_ratios(timings[0], timings[1]),
    )


async def measure_bounded(api: ApiClient, counter: TokenCounter, messages: int) -> BoundedResult:
    """The scripted session, a build after each turn, and the summaries and queue meanwhile."""
    turns = script(SEED, messages)
    await _prepare(api)
    started = time.perf_counter()
    samples = [read_queue(await api.metrics(), 0.0)]  # the session has no message yet
    summaries_made = 0
    builds: list[SessionBuild] = []
    with progress(len(turns), "session turns", "turn") as bar:
        for index, turn in enumerate(turns):
            await api.append_messages(AGENT, SESSION, list(turn.messages))
            following = turns[index + 1].user_text if index + 1 < len(turns) else LAST_INPUT
            builds.append(await _one_build(api, counter, following, _last_time(turn)))
            if index % SAMPLE_EVERY == 0 or index == len(turns) - 1:
                sample, summaries_made = await _sample(api, started)
                samples.append(sample)
            bar.update(1)
    seconds = time.perf_counter() - started
    drain = await wait_for_background(api, "background after the session")
    drained = len((await api.get_session(AGENT, SESSION)).summaries)
    paired = await _paired(api, counter, turns)
    found = buckets(builds, messages)
    return BoundedResult(
        messages=messages,
        turns=len(turns),
        seed=SEED,
        memories=MEMORIES,
        window=dict(WINDOW),
        available=AVAILABLE,
        tokens=token_checks(builds, AVAILABLE),
        seconds=round(seconds, 1),
        buckets=found,
        latency_ratio=latency_ratios(
            (found[0].server_ms, found[0].client_ms), (found[-1].server_ms, found[-1].client_ms)
        ),
        summaries_made=summaries_made,
        summaries_after_drain=drained,
        summaries_per_minute=round(summaries_made / (seconds / 60), 2) if seconds else 0.0,
        drain_seconds=round(drain, 1),
        queue=queue_stats(samples),
        series=build_series(builds),
        paired=paired,
    )
