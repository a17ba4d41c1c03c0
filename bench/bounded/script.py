"""The scripts of the bounded-working-context benchmark: seed 002's proof run (5 concluded
efforts, 30 ambient exchanges, then turns 1 to 26), and a long session of 200 efforts over
1,000 turns, each turn a user message, a build and the assistant's reply."""

import asyncio
import random
import time
from dataclasses import dataclass, field

from app.providers.tokenizer import TokenCounter
from bench.bounded.session import BoundedSession, Step

PROOF_TOPICS = [
    ("Login 401 errors", "The gateway rejects the refresh token after login with a 401.",
     "The refresh token lacks the audience claim; the gateway wants it."),
    ("Invoice report speed", "The invoice report query takes forty seconds on customers.",
     "An index on invoices by customer brings the report under a second."),
    ("Sailing trip", "Plan the sailing trip to the islands in June with a catamaran.",
     "Charter the catamaran from Split; the islands route takes six days."),
    ("Ledger migration", "Migrate the ledger tables from MySQL to PostgreSQL with pgloader.",
     "Pgloader moved the ledger; the triggers were rewritten for PostgreSQL."),
    ("Onboarding guide", "Rewrite the onboarding guide for new hires with screenshots.",
     "The onboarding guide now walks new hires through laptop setup with screenshots."),
]  # fmt: skip
LEDGER_QUESTION = "What happened with the ledger migration to PostgreSQL?"
# The long session's topics: 20 systems by 10 kinds of work, each pair one effort's.
SUBJECTS = (
    "kafka", "redis", "postgres", "nginx", "terraform", "docker", "grafana", "jenkins", "vault",
    "consul", "airflow", "spark", "elasticsearch", "rabbitmq", "celery", "kubernetes", "ansible",
    "prometheus", "sentry", "mongodb",
)  # fmt: skip
OBJECTS = "backup upgrade latency outage migration certificate quota replica dashboard alerting"
OBJECT_WORDS = OBJECTS.split()


def filler(turn: int) -> tuple[tuple[str, str], tuple[str, str]]:
    """An ambient exchange that refers to no effort."""
    return (
        ("user", f"Small talk {turn}: how was lunch today?"),
        ("assistant", "Fine, thank you, pasta again."),
    )


@dataclass(frozen=True)
class ProofRow:
    step: str
    action: str
    build: Step


async def wait_for_summaries(session: BoundedSession, wait_seconds: float = 120.0) -> None:
    """Until every concluded effort has its summary (made by the service's worker)."""
    deadline = time.monotonic() + wait_seconds
    while time.monotonic() < deadline:
        items = await session.efforts()
        if all(e["summary"] is not None for e in items if e["state"] != "open"):
            return
        await asyncio.sleep(0.25)
    raise TimeoutError("effort summaries were not made in time")


async def _turn(session: BoundedSession, counter: TokenCounter, user: str, reply: str) -> Step:
    await session.say(("user", user))
    step = await session.build(user, counter)
    await session.say(("assistant", reply))
    return step


async def proof_run(session: BoundedSession, counter: TokenCounter) -> tuple[list[ProofRow], int]:
    """Seed 002's table, and the rank at which the search found effort 4 at turn 22 (0: not)."""
    for i in range(30):
        await session.say(*filler(i))
    for title, question, answer in PROOF_TOPICS:
        effort_id = await session.open(title)
        await session.say(("user", question), ("assistant", answer))
        for step in range(3):
            await session.say(
                ("user", f"Step {step} of {title.lower()}: what exactly did we run?"),
                ("assistant", f"Step {step}: {answer} {question} We logged every command."),
            )
        await session.conclude(effort_id)
    await wait_for_summaries(session)
    rows = [ProofRow("Setup", "5 concluded efforts, 30 ambient exchanges",
                     await session.build("Where were we?", counter))]  # fmt: skip
    first = await _turn(session, counter, "Recall e_1 and e_2 for me.", "Both done.")
    rows.append(ProofRow("Turn 1", "refers to e_1 and e_2", first))
    for n in range(2, 21):
        await session.say(*filler(100 + n))
    user, reply = (m for _, m in filler(121))
    rows.append(ProofRow("Turn 21", "no reference to e_3-e_5 for 20 turns",
                         await _turn(session, counter, user, reply)))  # fmt: skip
    found = await session.search(LEDGER_QUESTION)
    rank = found.index("e_4") + 1 if "e_4" in found else 0
    asked = await _turn(session, counter, LEDGER_QUESTION, "Pgloader moved it, see e_4.")
    rows.append(ProofRow("Turn 22", f"asks about e_4's topic; search ranks e_4 {rank}", asked))
    await session.say(("user", "Show me every detail of it."))
    await session.expand("e_4")
    rows.append(ProofRow("Turn 23", "expands e_4",
                         await session.build("Show me every detail of it.", counter)))  # fmt: skip
    await session.say(("assistant", "Here they are."))
    for n in (24, 25, 26):
        user, reply = (m for _, m in filler(100 + n))
        built = await _turn(session, counter, user, reply)
        rows.append(ProofRow(f"Turn {n}", "no reference to e_4", built))
    return rows, rank


@dataclass
class LongRun:
    """The long session: a build per turn, and the topic of each effort."""

    steps: list[Step] = field(default_factory=list)
    topics: dict[str, str] = field(default_factory=dict)
    expanded: list[str] = field(default_factory=list)
    referenced: list[str] = field(default_factory=list)


def topic(index: int) -> tuple[str, str, str]:
    """The effort's system, kind of work, and a codename of its own."""
    subject = SUBJECTS[index % len(SUBJECTS)]
    kind = OBJECT_WORDS[index // len(SUBJECTS) % len(OBJECT_WORDS)]
    letters = "abcdefghijklmnopqrstuvwxyz"
    return subject, kind, "qx" + letters[index // 26 % 26] + letters[index % 26]


async def long_run(
    session: BoundedSession, counter: TokenCounter, efforts: int, per_effort: int, seed: int
) -> LongRun:
    """`efforts` efforts of `per_effort` - 2 turns each, then 2 ambient turns; now and then an
    ambient turn names an earlier effort, or expands one that left working memory."""
    rng, run, turn = random.Random(seed), LongRun(), 0
    for index in range(efforts):
        subject, kind, code = topic(index)
        effort_id = await session.open(f"{subject.capitalize()} {kind}")
        run.topics[effort_id] = f"{subject} {kind}"
        for j in range(per_effort - 2):
            turn += 1
            detail = " ".join(f"{code}{j}{k}" for k in range(12))
            run.steps.append(await _turn(
                session, counter, f"{subject} {kind} {code}?", f"{subject} {kind}: {detail}"
            ))  # fmt: skip
        await session.conclude(effort_id)
        for j in range(2):
            turn += 1
            user, reply = (m for _, m in filler(turn))
            if index and j == 0 and index % 10 == 0:  # refers to an earlier effort by its id
                earlier = f"e_{rng.randrange(1, index + 1)}"
                run.referenced.append(earlier)
                user = f"{user} Also, remember {earlier}."
            if index and j == 1 and index % 25 == 0:  # loads an evicted one back
                evicted = [e["effort_id"] for e in await session.efforts()
                           if not e["in_working_memory"] and e["state"] == "concluded"]  # fmt: skip
                if evicted:
                    run.expanded.append(chosen := rng.choice(evicted))
                    await session.expand(chosen)
            run.steps.append(await _turn(session, counter, user, reply))
    return run
