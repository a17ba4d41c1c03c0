"""Conversations (issue 17) over HTTP, in one service: a scripted session of 5,000 messages with a
build after each turn (tokens within the window, latency by session length, summaries and the
queue), and recall from history on LoCoMo conversations sent as sessions, beside the rule."""

import asyncio
import time
from dataclasses import asdict
from pathlib import Path

from pydantic import JsonValue

from app.providers.tokenizer import TokenCounter
from bench.common.client import ApiClient
from bench.common.locomo import Conversation, describe, load
from bench.common.results import RESULTS_DIR, run_info, write_json
from bench.common.sampling import RssSampler
from bench.common.server import Service
from bench.conversation.bounded import measure_bounded
from bench.conversation.chart import conversation_chart
from bench.conversation.recall import measure_recall
from bench.conversation.results import BoundedResult, ConversationResult, RecallResult
from bench.conversation.tables import tables

MESSAGES = 5_000


async def _measure(
    messages: int,
    conversations: list[Conversation],
    data: dict[str, JsonValue],
    concurrency: int,
    commit: str | None,
) -> tuple[BoundedResult | None, RecallResult | None, dict[str, float]]:
    """Both parts against one service, each with the CPU share other processes took."""
    bounded = recall = None
    shares: dict[str, float] = {}
    with Service(commit=commit) as service:
        counter = TokenCounter(service.data_dir / "tiktoken")
        async with ApiClient(service.base_url, service.api_key) as api:
            if messages:
                sampler = RssSampler(service)
                sampler.start()
                bounded = await measure_bounded(api, counter, messages)
                shares["bounded"] = sampler.other_cpu_share()
                sampler.stop()
            if conversations:
                sampler = RssSampler(service)
                sampler.start()
                recall = await measure_recall(api, counter, conversations, data, concurrency)
                shares["recall"] = sampler.other_cpu_share()
                sampler.stop()
    return bounded, recall, shares


def run(
    data: Path,
    messages: int = MESSAGES,
    concurrency: int = 4,
    limit: int | None = None,
    commit: str | None = None,
) -> ConversationResult:
    """The whole benchmark: both parts (`messages` 0 leaves out the bounded one, `limit` 0 the
    recall one), tables, JSON and chart."""
    started = time.perf_counter()
    loaded, repairs = load(data)
    conversations = loaded if limit is None else loaded[:limit]
    described = describe(data, conversations, repairs)
    print(
        f"Bounded: {messages:,} scripted messages. Recall: {data}, "
        f"{described['conversations']} conversations, {described['turns']} turns, "
        f"{described['questions']} questions (evidence repairs: {described['repairs']})"
    )
    bounded, recall, shares = asyncio.run(
        _measure(messages, conversations, described, concurrency, commit)
    )
    result = ConversationResult(
        run={**run_info(commit), "minutes": round((time.perf_counter() - started) / 60, 1)},
        bounded=bounded,
        recall=recall,
        other_cpu_share=shares,
    )
    path = write_json("conversation", asdict(result))
    chart = conversation_chart(result, RESULTS_DIR / "conversation.png")
    print()
    print(tables(result))
    print(f"\nWrote {path} and {chart}")
    return result
