"""A seeded synthetic chat session of an on-call assistant: user and assistant turns of realistic
lengths, long plans now and then, tool calls answered by tool messages with their ids.

Generated from the speed corpus's word lists (`bench/common/corpus.py`), so the same seed gives
the same session, message for message. A turn is a user message and the assistant's reply (2
messages), or a user message, the assistant's tool call, one or two tool results and the reply
(4 or 5); the session opens with a system prompt, the user's standing instructions and an
acknowledgement. Users come back to earlier topics now and then, in the words they used then.
"""

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from pydantic import JsonValue

from bench.common.corpus import (
    ACTIONS,
    COMPONENTS,
    CUSTOMERS,
    METRICS,
    PEOPLE,
    PROBLEMS,
    REGIONS,
    TECHNOLOGIES,
)

START = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
TOOL_TURN_SHARE = 0.12
LONG_REPLY_SHARE = 0.08
CALLBACK_SHARE = 0.1
_LAST_TURNS = {6: (2, 4), 7: (2, 5), 8: (4, 4), 9: (4, 5), 10: (5, 5)}  # sizes that end exactly

Message = dict[str, JsonValue]


@dataclass(frozen=True)
class ScriptTurn:
    """The messages of one turn, in order, each with its `created_at`."""

    messages: tuple[Message, ...]

    @property
    def user_text(self) -> str:
        """What the user said to open the turn."""
        return str(self.messages[0]["content"])


class ScriptGenerator:
    """Turns of one session, reproducible from a seed."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.clock = START
        self.topics: list[tuple[str, str, str]] = []  # (component, problem, technology) so far
        self.calls = 0

    def _pick(self, options: tuple[str, ...]) -> str:
        return self.rng.choice(options)

    def _n(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)

    def _message(self, role: str, content: str, **extra: str) -> Message:
        self.clock += timedelta(seconds=self._n(5, 90) if role != "user" else self._n(30, 900))
        return {"role": role, "content": content, "created_at": self.clock.isoformat(), **extra}

    def _topic(self) -> tuple[str, str, str]:
        if self.topics and self.rng.random() < CALLBACK_SHARE:
            return self.rng.choice(self.topics)
        topic = (self._pick(COMPONENTS), self._pick(PROBLEMS), self._pick(TECHNOLOGIES))
        self.topics.append(topic)
        return topic

    def opening(self) -> ScriptTurn:
        """The system prompt, the user's instructions for the session, the acknowledgement."""
        return ScriptTurn(
            (
                self._message(
                    "system",
                    "You are Atlas, the platform team's on-call assistant. Answer briefly, cite "
                    "the runbook you rely on, and never run a destructive command without an "
                    "explicit confirmation from the engineer on call.",
                ),
                self._message(
                    "user",
                    f"For this whole session: I'm {self._pick(PEOPLE)}, on call this week for "
                    f"the {self._pick(COMPONENTS)} and the {self._pick(COMPONENTS)}. Keep answers "
                    "under 200 words unless I ask for a plan, and always say which region a "
                    "command targets.",
                ),
                self._message("assistant", "Understood. I'll keep it short and name regions."),
            )
        )

    def _user(self, topic: tuple[str, str, str]) -> str:
        c, p, t = topic
        person, m = self._pick(PEOPLE), self._pick(METRICS)
        return self.rng.choice(
            (
                f"Why does the {c} show {p} again since {self._n(0, 23):02d}:00?",
                f"Can you draft a plan to {self._pick(ACTIONS)} the {c}? {person} wants it "
                "before Friday.",
                f"What did we decide about {t} for the {c}?",
                f"{person} says the {m} of the {c} is at {self._n(2, 900)}. Is that normal?",
                f"Going back to the {p} in the {c}: did the {t} change fix it?",
                f"Customers of {self._pick(CUSTOMERS)} in {self._pick(REGIONS)} report {p}. "
                f"Is the {c} involved?",
                f"Here's what we get: `{t}Error: {p} in {c.replace(' ', '_')}."
                f"py:{self._n(10, 900)}`. Any idea?",
                "ok, thanks",
                "Sounds good, go ahead.",
                f"And the {m}?",
            )
        )

    def _sentence(self, topic: tuple[str, str, str]) -> str:
        c, p, t = topic
        m, a, person = self._pick(METRICS), self._pick(ACTIONS), self._pick(PEOPLE)
        return self.rng.choice(
            (
                f"The {m} of the {c} went from {self._n(2, 90)} to {self._n(100, 900)} in "
                f"{self._n(2, 50)} minutes, which points at {p}.",
                f"The runbook says to {a} the {c} first and to watch the {m} for an hour.",
                f"{person} saw the same pattern last quarter when {t} was upgraded.",
                f"In {self._pick(REGIONS)} the {c} runs {self._n(2, 40)} replicas behind {t}.",
                f"A pool size of {self._n(10, 200)} with a {self._n(1, 30)} s timeout kept it "
                "stable last time.",
                f"I would not {a} the {c} during peak hours; {self._pick(CUSTOMERS)} is most "
                "active then.",
                f"The alert on the {m} fires at {self._n(50, 99)}% and has paged "
                f"{self._n(2, 9)} times this week.",
            )
        )

    def _reply(self, topic: tuple[str, str, str]) -> str:
        if self.rng.random() < LONG_REPLY_SHARE:
            return self._plan(topic)
        return " ".join(self._sentence(topic) for _ in range(self._n(1, 6)))

    def _plan(self, topic: tuple[str, str, str]) -> str:
        """A long answer: numbered steps, a command block, risks."""
        c, p, t = topic
        steps = [
            f"{i}. {self._sentence(topic)} {self._sentence(topic)}"
            for i in range(1, self._n(6, 16))
        ]
        commands = [
            f"kubectl -n {c.split()[0]} rollout restart deploy/{c.replace(' ', '-')} "
            f"--context {self._pick(REGIONS)}"
            for _ in range(self._n(2, 6))
        ]
        risks = " ".join(self._sentence(topic) for _ in range(self._n(2, 5)))
        return "\n".join(
            [
                f"Here is a plan for the {p} in the {c} ({t}):",
                "",
                *steps,
                "",
                "```sh",
                *commands,
                "```",
                "",
                f"Risks: {risks}",
            ]
        )

    def _tool_result(self, topic: tuple[str, str, str]) -> str:
        c, p, t = topic
        lines = []
        for _ in range(self._n(3, 30)):
            at = self.clock - timedelta(seconds=self._n(1, 3600))
            level = self.rng.choice(("INFO", "INFO", "WARN", "ERROR"))
            lines.append(
                f"{at:%Y-%m-%dT%H:%M:%SZ} {level} {c.replace(' ', '-')} {t}: "
                f"{self.rng.choice((p, 'request served', 'retrying', 'pool stats'))} "
                f"latency_ms={self._n(3, 4000)} pool={self._n(1, 200)}/{self._n(200, 400)}"
            )
        return "\n".join(lines)

    def turn(self, size: int) -> ScriptTurn:
        """One turn of `size` messages: 2 (user, reply), 4 or 5 (with one or two tool calls)."""
        topic = self._topic()
        messages = [self._message("user", self._user(topic))]
        if size > 2:
            messages.append(
                self._message("assistant", f"Let me check the {topic[2]} logs for the {topic[0]}.")
            )
            for _ in range(size - 3):
                self.calls += 1
                messages.append(
                    self._message(
                        "tool", self._tool_result(topic), tool_call_id=f"call_{self.calls:05d}"
                    )
                )
        messages.append(self._message("assistant", self._reply(topic)))
        return ScriptTurn(tuple(messages))

    def next_size(self) -> int:
        if self.rng.random() < TOOL_TURN_SHARE:
            return self.rng.choice((4, 4, 5))
        return 2


def script(seed: int, messages: int) -> list[ScriptTurn]:
    """The session's turns, `messages` messages in all (at least 13: the opening and turns
    whose sizes end exactly there)."""
    if messages < 13:
        raise ValueError("a scripted session has at least 13 messages")
    generator = ScriptGenerator(seed)
    turns = [generator.opening()]
    left = messages - len(turns[0].messages)
    while left > max(_LAST_TURNS):
        size = generator.next_size()
        turns.append(generator.turn(size))
        left -= size
    turns.extend(generator.turn(size) for size in _LAST_TURNS[left])
    return turns
