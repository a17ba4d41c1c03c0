"""The conversation benchmark's tables: the bounded session and recall from history."""

from collections.abc import Mapping

from bench.common.locomo import category_label
from bench.common.queue_metrics import QueueStats
from bench.common.recall import BudgetSummary
from bench.common.results import table
from bench.conversation.results import (
    BoundedResult,
    ConversationResult,
    RecallResult,
    RecallStats,
    TokenChecks,
)

_NO_LAG = (
    "no series of how long jobs wait on /metrics (it has ce_job_queue_depth by task and state, "
    "ce_jobs_processed_total and ce_job_duration_seconds)"
)


def _window(window: Mapping[str, object]) -> str:
    return ", ".join(f"{key} {value}" for key, value in window.items())


def _queue(queue: QueueStats) -> str:
    lag = ", ".join(f"{name} max {value}" for name, value in queue.lag_max.items()) or _NO_LAG
    return (
        f"Background queue ({queue.samples} readings of /metrics): jobs queued or running, max "
        f"{queue.depth_max or '{}'}, mean {queue.depth_mean or '{}'}; jobs done during the "
        f"session {queue.done or '{}'}; queue lag: {lag}"
    )


def _token_rows(checks: TokenChecks) -> list[list[object]]:
    ceiling = f"≤ {checks.available}"
    return [
        ["builds", checks.builds, ""],
        ["context + history, max (the build's accounts)", checks.max, ceiling],
        ["the same recounted here, max", checks.recount_max, ceiling],
        ["builds over available (accounts / recount)", f"{checks.over} / {checks.recount_over}", 0],
        ["recount ≠ accounts", checks.recount_mismatches, 0],
        ["context tokens, mean", checks.context_mean, ""],
        ["history tokens, mean", checks.history_mean, ""],
        ["builds with recalled messages", checks.recalled_builds, ""],
        ["builds whose sinks or fresh tail had to go", checks.pressure_builds, ""],
    ]


def _stages_table(result: BoundedResult) -> str:
    stages = list(dict.fromkeys(s for b in result.buckets for s in b.stages_p50_ms))
    return table(
        ["messages", *stages],
        [[b.messages, *[b.stages_p50_ms.get(s, "") for s in stages]] for b in result.buckets],
    )


def _paired_lines(result: BoundedResult, target_ratio: float) -> list[str]:
    paired = result.paired
    if paired is None:
        return []
    ratio = paired.ratio
    return [
        f"Paired, the same {paired.builds} inputs built in turn on the whole session "
        f"({paired.long_messages:,} messages) and on a copy of its first {paired.short_messages}: "
        f"server p50 {paired.long_server_ms.p50} / {paired.short_server_ms.p50} ms, p95 "
        f"{paired.long_server_ms.p95} / {paired.short_server_ms.p95}; ratio server p50 "
        f"{ratio['server p50']}, p95 {ratio['server p95']}; client p50 {ratio['client p50']}, "
        f"p95 {ratio['client p95']} (target ≤ {target_ratio})"
    ]


def bounded_tables(result: BoundedResult, target_ratio: float, other_cpu: float | None) -> str:
    """Tokens against the window, latency by session length, summaries and the queue."""
    checks = result.tokens
    ratio = result.latency_ratio
    first, last = result.buckets[0].messages, result.buckets[-1].messages
    parts = [
        f"Bounded: a scripted session of {result.messages:,} messages ({result.turns:,} turns), "
        f"a build after each turn; window {_window(result.window)} (available "
        f"{result.available:,}); the agent holds {result.memories} memories",
        table(["measure", "value", "target"], _token_rows(checks)),
        "",
        "Build latency by session length (ms; the builds of the last 100 messages up to it)",
        table(
            ["messages", "builds", "server p50", "p95", "client p50", "p95", "tokens max"],
            [
                [
                    b.messages,
                    b.builds,
                    b.server_ms.p50,
                    b.server_ms.p95,
                    b.client_ms.p50,
                    b.client_ms.p95,
                    b.tokens_max,
                ]
                for b in result.buckets
            ],
        ),
        "Server-side stages by session length (p50, ms)",
        _stages_table(result),
        f"Latency at {last:,} messages over at {first:,}: server p50 {ratio['server p50']}, "
        f"p95 {ratio['server p95']}; client p50 {ratio['client p50']}, p95 "
        f"{ratio['client p95']} (target ≤ {target_ratio})",
        *_paired_lines(result, target_ratio),
        "",
        f"Summaries: {result.summaries_made} listed by the session after the last turn "
        f"({result.summaries_per_minute} a minute over {result.seconds / 60:.1f} min), "
        f"{result.summaries_after_drain} once the queue was empty ({result.drain_seconds} s "
        f"later); at most {checks.summaries_used_max} used by one build",
        _queue(result.queue),
    ]
    if other_cpu is not None:
        parts.append(f"Other processes used {other_cpu:.0%} of the CPU meanwhile")
    return "\n".join(parts)


def _windows(summaries: dict[int, BudgetSummary]) -> list[int]:
    return sorted(summaries)


def _category_rows(result: RecallResult) -> list[list[object]]:
    windows = _windows(result.service)
    counts = result.data.get("categories")
    rows: list[list[object]] = []
    for name in result.service[windows[-1]].by_category:
        questions = counts.get(name, "") if isinstance(counts, dict) else ""
        values: list[object] = []
        for w in windows:
            values += [
                result.service[w].by_category.get(name, ""),
                result.rule[w].by_category.get(name, ""),
            ]
        rows.append([category_label(name), questions, *values])
    return rows


def _recall_rows(result: RecallResult) -> list[list[object]]:
    windows = _windows(result.service)
    service, rule, alone = result.service, result.rule, result.rule_without_sinks
    return [
        [
            "**service** (kept, recalled, quoted by summaries)",
            *[service[w].recall for w in windows],
        ],
        ["fresh tail + newest first (the rule, same sinks)", *[rule[w].recall for w in windows]],
        ["fresh tail + newest first, no sinks", *[alone[w].recall for w in windows]],
        ["service beats the rule", *["yes" if result.beats_rule[w] else "no" for w in windows]],
        ["service, all evidence in", *[service[w].all_evidence for w in windows]],
        ["rule, all evidence in", *[rule[w].all_evidence for w in windows]],
        *[
            [f"service, evidence {way}", *[result.sources[w].get(way, 0.0) for w in windows]]
            for way in ("kept", "recalled", "summaries")
        ],
    ]


_BUILD_HEADERS = [
    "window", "kept (mean)", "recalled (mean)", "summaries (mean)", "tokens max", "over",
    "server p50", "p95", "client p50", "p95",
]  # fmt: skip


def _build_row(stats: RecallStats, window: int) -> list[object]:
    tokens = stats.tokens[window]
    return [
        window,
        stats.kept_mean[window],
        stats.recalled_mean[window],
        stats.summaries_mean[window],
        max(tokens.max, tokens.recount_max),
        max(tokens.over, tokens.recount_over),
        stats.server_ms[window].p50,
        stats.server_ms[window].p95,
        stats.client_ms[window].p50,
        stats.client_ms[window].p95,
    ]


def recall_tables(result: RecallResult, other_cpu: float | None) -> str:
    """Recall per window for the service and the rule, by way in, by category; the builds."""
    windows = _windows(result.service)
    stats = result.stats
    data = result.data
    parts = [
        f"Recall from history: {data.get('conversations')} LoCoMo conversations sent as sessions "
        f"({data.get('turns')} messages, no memories), {data.get('questions')} questions at "
        f"each window; window {_window(result.window)}",
        table(["evidence recall", *[str(w) for w in windows]], _recall_rows(result)),
        "",
        "Recall by question category (service / rule)",
        table(
            [
                "category",
                "questions",
                *[f"{who} {w}" for w in windows for who in ("service", "rule")],
            ],
            _category_rows(result),
        ),
        "",
        f"Builds ({stats.builds} at {stats.concurrency} concurrent clients; latency in ms)",
        table(_BUILD_HEADERS, [_build_row(stats, w) for w in windows]),
        f"Checks: kept seqs from the manifest ≠ the messages sent: {stats.manifest_mismatches}; "
        f"builds with nothing recalled or summarised whose kept seqs ≠ the rule's: "
        f"{stats.rule_mismatches} of {stats.rule_compared}; summaries listed by the sessions: "
        f"{stats.summaries_listed}",
        f"Time: {stats.send_seconds} s to send, {stats.background_wait_seconds} s for the "
        f"background, {stats.build_seconds} s of builds",
    ]
    if other_cpu is not None:
        parts.append(f"Other processes used {other_cpu:.0%} of the CPU meanwhile")
    return "\n".join(parts)


def tables(result: ConversationResult) -> str:
    """Both parts, those the run measured."""
    parts = []
    if result.bounded is not None:
        parts.append(
            bounded_tables(
                result.bounded,
                result.targets.get("latency_ratio", 1.5),
                result.other_cpu_share.get("bounded"),
            )
        )
    if result.recall is not None:
        parts.append(recall_tables(result.recall, result.other_cpu_share.get("recall")))
    minutes = result.run.get("minutes")
    return "\n\n".join(parts) + (f"\n\nThe benchmark took {minutes} min." if minutes else "")
