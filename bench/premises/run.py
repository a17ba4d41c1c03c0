"""The premise check on LoCoMo: how many questions whose premise the conversation bears out are
flagged anyway (false flags), and how many questions made false are flagged (recall); the
questions are in `questions.py`."""

import asyncio
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from pathlib import Path

from pydantic import BaseModel, ConfigDict, JsonValue

from app.context.premises.presuppositions import presuppositions
from bench.common.client import ApiClient
from bench.common.ingest import ingest_turns, progress, wait_for_background
from bench.common.locomo import Conversation, describe, load
from bench.common.results import percentiles, run_info, write_json
from bench.common.server import Service
from bench.premises.questions import GROUPS, Asked, made_false

BUDGET = 1000
SIMILARITIES = (0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8)


@dataclass
class Counts:
    questions: int = 0
    with_premise: int = 0
    flagged: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    # Of each flagged question, the highest similarity to it of a memory in its context: a
    # lower CE_CONTEXT__PREMISE_SUPPORT_SIMILARITY might have let that memory bear it out (only
    # if it says the premise's event, which the benchmark does not see: a lower bound).
    closest: list[float] = field(default_factory=list)

    def flagged_under(self, similarity: float) -> int:
        """The questions still flagged were the support similarity `similarity`, at least."""
        return sum(1 for closest in self.closest if closest < similarity)


class _Read(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _Item(_Read):
    components: dict[str, float]


class _Layer(_Read):
    items: list[_Item] = []


class _Premise(_Read):
    status: str
    note: str


class _Built(_Read):
    """What the benchmark reads of a build."""

    layers: list[_Layer]
    premises: list[_Premise] = []
    timings_ms: dict[str, float]

    def closest(self) -> float:
        """The highest similarity to the input of a memory in the context."""
        parts = [item.components["semantic"] for layer in self.layers for item in layer.items]
        return max(parts, default=0.0)


async def _builds(
    api: ApiClient, asked: list[Asked], concurrency: int, show: int
) -> tuple[dict[str, Counts], list[float]]:
    counts: dict[str, Counts] = {group: Counts() for group in GROUPS}
    stage_ms: list[float] = []
    queue = iter(asked)
    bar = progress(len(asked), "context builds", "build")
    shown = 0

    async def client() -> None:
        nonlocal shown
        for item in queue:
            request: dict[str, JsonValue] = {
                "agent_id": item.conversation.sample_id,
                "input": item.text,
                "budget": BUDGET,
                "now": (item.conversation.last_time + timedelta(hours=1)).isoformat(),
            }
            body, _ms = await api.build_json(request)
            built = _Built.model_validate_json(body)
            premises = built.premises
            count = counts[item.group]
            count.questions += 1
            found = bool(presuppositions(item.text))
            count.with_premise += found
            count.flagged += bool(premises)
            for premise in premises:
                count.statuses[premise.status] = count.statuses.get(premise.status, 0) + 1
            if premises:
                count.closest.append(built.closest())
            if found:  # the builds that check a premise
                stage_ms.append(built.timings_ms.get("premises", 0.0))
            if premises and item.group == "true" and shown < show:
                shown += 1  # on the console only: the results hold no text of the data
                bar.write(f"false flag: {item.text!r} -> {premises[0].note}")
            bar.update(1)

    await asyncio.gather(*(client() for _ in range(concurrency)))
    bar.close()
    return counts, stage_ms


async def _measure(
    conversations: list[Conversation], asked: list[Asked], concurrency: int, commit: str | None
) -> tuple[dict[str, Counts], list[float]]:
    with Service(commit=commit) as service:
        async with ApiClient(service.base_url, service.api_key) as api:
            await ingest_turns(api, conversations)
            await wait_for_background(api, "embed turns")
            return await _builds(api, asked, concurrency, show=40)


def _row(group: str, count: Counts) -> str:
    rate = count.flagged / count.questions if count.questions else 0.0
    return (
        f"| {group} | {count.questions} | {count.with_premise} | {count.flagged} | "
        f"{rate:.1%} | {dict(count.statuses)} |"
    )


def run(
    data: Path, concurrency: int = 4, limit: int | None = None, commit: str | None = None
) -> None:
    """Build a context for every question and every false one; count the flags."""
    loaded, repairs = load(data)
    conversations = loaded[:limit] if limit else loaded
    asked = [
        Asked(c, q.text, "adversarial" if q.category == 5 else "true")
        for c in conversations
        for q in c.questions
    ] + made_false(conversations)
    counts, stage_ms = asyncio.run(_measure(conversations, asked, concurrency, commit))
    result: dict[str, object] = {
        "run": run_info(commit),
        "data": describe(data, conversations, repairs),
        "budget": BUDGET,
        "counts": {group: asdict(count) for group, count in counts.items()},
        "premises_stage_ms": asdict(percentiles(stage_ms)),
    }
    result["flagged_by_support_similarity"] = {
        str(similarity): {group: c.flagged_under(similarity) for group, c in counts.items()}
        for similarity in SIMILARITIES
    }
    path = write_json("premises", result)
    print("\n| questions | built | with a premise found | flagged | share flagged | statuses |")
    print("|---|---|---|---|---|---|")
    for group, count in counts.items():
        print(_row(group, count))
    print("\n| support similarity | " + " | ".join(counts) + " |")
    for similarity in SIMILARITIES:
        flagged = (f"{c.flagged_under(similarity)}" for c in counts.values())
        print(f"| {similarity} | " + " | ".join(flagged) + " |")
    print(f"\npremise stage, builds with a premise: {asdict(percentiles(stage_ms))} ms")
    print(f"Wrote {path}")
