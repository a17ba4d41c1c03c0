"""Recall from history: LoCoMo conversations sent as session messages (no memories), each
question built with the session at windows of 2,000 / 4,000 / 8,000 tokens; evidence that
reaches the model (kept, recalled, quoted by a summary) beside the fresh-tail-plus-newest-first
rule, computed here with the service's own selection function on the same messages."""

import asyncio
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta

from pydantic import JsonValue

from app.context.history.choice import HistoryMessage, select_history
from app.providers.tokenizer import EncodingName, TokenCounter
from bench.common.build_view import BuildView, HistoryView
from bench.common.client import BATCH_MAX, ApiClient, MemoryBody
from bench.common.ingest import progress, wait_for_background
from bench.common.locomo import Conversation, Question
from bench.common.recall import Outcome, summarise
from bench.common.results import percentiles
from bench.conversation.history_check import encoding_of, manifest_agrees, reached, session_build
from bench.conversation.results import RecallResult, RecallStats, SessionBuild, token_checks

SESSION = "locomo"
WINDOWS = (2_000, 4_000, 8_000)
# All of the window to the history: no reserves, no memory context (the agent has no memory);
# the service's default fresh tail and sinks.
FRESH_TAIL, SINKS = 16, 2
WINDOW: dict[str, JsonValue] = {
    "system_reserve": 0,
    "tools_reserve": 0,
    "memory_fraction": 0.0,
    "learnings_fraction": 0.0,
    "fresh_tail": FRESH_TAIL,
    "sinks": SINKS,
}


@dataclass(frozen=True)
class SentConversation:
    """A conversation as sent: its messages at their seqs, and the seq of each dia_id."""

    conversation: Conversation
    messages: list[HistoryMessage]
    seq_of: dict[str, int]

    @property
    def contents(self) -> list[str]:
        return [message.content for message in self.messages]

    def evidence(self, question: Question) -> list[int]:
        return [self.seq_of[dia_id] for dia_id in question.evidence]


@dataclass
class RecallRuns:
    """Everything measured on the builds, and the rule's outcomes on the same questions."""

    service: list[Outcome] = field(default_factory=list)
    rule: list[Outcome] = field(default_factory=list)
    rule_without_sinks: list[Outcome] = field(default_factory=list)
    sources: dict[int, dict[str, list[float]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list))
    )
    builds: dict[int, list[SessionBuild]] = field(default_factory=lambda: defaultdict(list))
    manifest_mismatches: int = 0
    rule_compared: int = 0
    rule_mismatches: int = 0


def as_messages(conversation: Conversation) -> list[MemoryBody]:
    """Each turn one message: the first speaker the user, the other the assistant; the content
    "Speaker: text [shares an image: caption]", at the turn's time."""
    first = conversation.speakers[0]
    return [
        {
            "role": "user" if turn.speaker == first else "assistant",
            "content": turn.render(),
            "created_at": turn.at.isoformat(),
        }
        for turn in conversation.turns
    ]


async def send(api: ApiClient, conversations: Sequence[Conversation]) -> list[SentConversation]:
    """Every conversation into a session of its own agent, in order, 100 messages a request."""
    sent: list[SentConversation] = []
    with progress(sum(len(c.turns) for c in conversations), "send turns", "msg") as bar:
        for conv in conversations:
            first, second = conv.speakers
            await api.put_agent(conv.sample_id, f"Companion of {first} and {second}")
            bodies = as_messages(conv)
            seqs: list[int] = []
            for start in range(0, len(bodies), BATCH_MAX):
                batch = bodies[start : start + BATCH_MAX]
                seqs.extend(await api.append_messages(conv.sample_id, SESSION, batch))
                bar.update(len(batch))
            if seqs != list(range(len(bodies))):
                raise RuntimeError(f"{conv.sample_id}: the session numbered its messages apart")
            messages = [
                HistoryMessage(seq, str(body["role"]), str(body["content"]))
                for seq, body in zip(seqs, bodies, strict=True)
            ]
            seq_of = {turn.dia_id: seq for seq, turn in zip(seqs, conv.turns, strict=True)}
            sent.append(SentConversation(conv, messages, seq_of))
    return sent


class Rule:
    """Fresh tail plus newest first over a whole session (`select_history`, the service's own
    selection, without recall or summaries), in the encoding the build counted in."""

    def __init__(self, counter: TokenCounter) -> None:
        self.counter = counter
        self._kept: dict[tuple[str, int, EncodingName, int], frozenset[int]] = {}

    def kept(
        self, sent: SentConversation, budget: int, encoding: EncodingName, sinks: int
    ) -> frozenset[int]:
        """The seqs the rule keeps in `budget` chat tokens, with `sinks` sinks."""
        key = (sent.conversation.sample_id, budget, encoding, sinks)
        if key not in self._kept:
            choice = select_history(
                self.counter.bound(encoding),
                sent.messages,
                budget,
                sinks=sinks,
                fresh_tail=FRESH_TAIL,
            )
            self._kept[key] = frozenset(message.seq for message in choice.kept)
        return self._kept[key]


def share(evidence: Sequence[int], seqs: frozenset[int]) -> float:
    """The share of the evidence's seqs among `seqs`."""
    return sum(1 for seq in evidence if seq in seqs) / len(evidence)


def _request(sent: SentConversation, question: Question, total: int) -> dict[str, JsonValue]:
    conv = sent.conversation
    return {
        "agent_id": conv.sample_id,
        "input": question.text,
        "session_id": SESSION,
        "window": {"total": total, **WINDOW},
        "now": (conv.last_time + timedelta(hours=1)).isoformat(),
    }


def _score(
    runs: RecallRuns,
    rule: Rule,
    sent: SentConversation,
    question: Question,
    total: int,
    built: BuildView,
    client_ms: float,
) -> None:
    """What reached the model of the question's evidence, by way in; the rule's beside it."""
    history = built.history or HistoryView()
    way = reached(history)
    evidence = sent.evidence(question)
    record = session_build(rule.counter, built, client_ms)
    runs.builds[total].append(record)
    runs.manifest_mismatches += not manifest_agrees(history, built.messages, sent.contents)
    found = share(evidence, way.all())
    tokens = record.context + record.history
    runs.service.append(Outcome(question.category, total, found, tokens, found))
    runs.sources[total]["kept"].append(share(evidence, way.kept))
    runs.sources[total]["recalled"].append(share(evidence, way.recalled - way.kept))
    runs.sources[total]["summaries"].append(share(evidence, way.quoted - way.kept - way.recalled))
    encoding = encoding_of(built) or rule.counter.default_encoding
    kept = rule.kept(sent, total, encoding, SINKS)
    by_rule = share(evidence, kept)
    runs.rule.append(Outcome(question.category, total, by_rule, 0, by_rule))
    alone = share(evidence, rule.kept(sent, total, encoding, 0))
    runs.rule_without_sinks.append(Outcome(question.category, total, alone, 0, alone))
    if not history.recalled and not history.summaries and built.totals.used == 0:
        runs.rule_compared += 1  # the same budget, nothing added: the service keeps the rule's
        runs.rule_mismatches += way.kept != kept


async def _builds(
    api: ApiClient, sent: Sequence[SentConversation], counter: TokenCounter, concurrency: int
) -> RecallRuns:
    """Every question at every window, from a few concurrent clients."""
    runs, rule = RecallRuns(), Rule(counter)
    work = [(s, q, total) for s in sent for q in s.conversation.questions for total in WINDOWS]
    queue = iter(work)
    bar = progress(len(work), "session builds", "build")

    async def client() -> None:
        for conv, question, total in queue:
            built, client_ms = await api.build(_request(conv, question, total))
            _score(runs, rule, conv, question, total, built, client_ms)
            bar.update(1)

    await asyncio.gather(*(client() for _ in range(concurrency)))
    bar.close()
    return runs


def _mean(values: Sequence[float]) -> float:
    return round(sum(values) / len(values), 4) if values else 0.0


def _stats(
    runs: RecallRuns, concurrency: int, seconds: dict[str, float], summaries_listed: int
) -> RecallStats:
    builds = runs.builds
    return RecallStats(
        builds=sum(len(b) for b in builds.values()),
        concurrency=concurrency,
        server_ms={w: percentiles([b.server_ms for b in builds[w]]) for w in WINDOWS},
        client_ms={w: percentiles([b.client_ms for b in builds[w]]) for w in WINDOWS},
        kept_mean={w: round(_mean([b.kept for b in builds[w]]), 1) for w in WINDOWS},
        recalled_mean={w: _mean([b.recalled for b in builds[w]]) for w in WINDOWS},
        summaries_mean={w: _mean([b.summaries for b in builds[w]]) for w in WINDOWS},
        tokens={w: token_checks(builds[w], w) for w in WINDOWS},
        manifest_mismatches=runs.manifest_mismatches,
        rule_compared=runs.rule_compared,
        rule_mismatches=runs.rule_mismatches,
        summaries_listed=summaries_listed,
        send_seconds=round(seconds["send"], 1),
        background_wait_seconds=round(seconds["background"], 1),
        build_seconds=round(seconds["builds"], 1),
    )


async def measure_recall(
    api: ApiClient,
    counter: TokenCounter,
    conversations: Sequence[Conversation],
    data: dict[str, JsonValue],
    concurrency: int,
) -> RecallResult:
    """Send the conversations, wait for their background work (summaries, when the service
    makes them), build every question at every window, and score both ways."""
    started = time.perf_counter()
    sent = await send(api, conversations)
    seconds = {"send": time.perf_counter() - started}
    seconds["background"] = await wait_for_background(api, "background after sending")
    listed = [await api.get_session(s.conversation.sample_id, SESSION) for s in sent]
    started = time.perf_counter()
    runs = await _builds(api, sent, counter, concurrency)
    seconds["builds"] = time.perf_counter() - started
    service, by_rule = summarise(runs.service), summarise(runs.rule)
    return RecallResult(
        data=data,
        window=dict(WINDOW),
        service=service,
        rule=by_rule,
        rule_without_sinks=summarise(runs.rule_without_sinks),
        sources={w: {k: _mean(v) for k, v in runs.sources[w].items()} for w in WINDOWS},
        beats_rule={w: service[w].recall > by_rule[w].recall for w in WINDOWS},
        stats=_stats(runs, concurrency, seconds, sum(len(s.summaries) for s in listed)),
    )
