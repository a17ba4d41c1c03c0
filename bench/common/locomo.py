"""LoCoMo-format conversations: turns with their session time, questions with repaired evidence."""

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pydantic import JsonValue

# The names of LoCoMo's categories; files converted from other sets (LongMemEval has six
# question types) may use any numbers, which are reported as "category N".
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
_SESSION = re.compile(r"^session_(\d+)$")
_DIA_ID = re.compile(r"^D\s*:?\s*(\d+)\s*:\s*(\d+)$")


def category_name(number: int) -> str:
    """LoCoMo's name of a category number, or "category N" for one it does not name."""
    return CATEGORIES.get(number, f"category {number}")


def category_label(name: str) -> str:
    """A category for tables: "1 multi-hop" for LoCoMo's, the name itself for others."""
    number = next((n for n, known in CATEGORIES.items() if known == name), None)
    return f"{number} {name}" if number is not None else name


@dataclass(frozen=True)
class Turn:
    """One dialog turn: who said what (and the caption of an image shared), and when."""

    dia_id: str
    speaker: str
    text: str
    caption: str | None
    session: int
    index: int
    at: datetime

    def render(self) -> str:
        """The turn as one line: "Speaker: text [shares an image: caption]"."""
        line = f"{self.speaker}: {self.text}"
        if self.caption:
            line += f" [shares an image: {self.caption}]"
        return " ".join(line.split())


@dataclass(frozen=True)
class Question:
    text: str
    category: int
    evidence: tuple[str, ...]


@dataclass
class Conversation:
    sample_id: str
    speakers: tuple[str, str]
    turns: list[Turn]
    questions: list[Question]

    @property
    def last_time(self) -> datetime:
        return max(turn.at for turn in self.turns)


@dataclass
class Repairs:
    """What loading had to fix in the evidence ids."""

    counts: Counter[str] = field(default_factory=Counter)

    def as_json(self) -> dict[str, JsonValue]:
        return dict(sorted(self.counts.items()))


def parse_session_time(value: str) -> datetime:
    """ "1:56 pm on 8 May, 2023" -> 2023-05-08 13:56 UTC (the data names no time zone)."""
    cleaned = " ".join(value.replace(",", ", ").split()).replace(" ,", ",")
    for pattern in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%I:%M%p on %d %B, %Y"):
        try:
            return datetime.strptime(cleaned, pattern).replace(tzinfo=UTC)
        except ValueError:
            continue
    raise ValueError(f"unrecognised session date-time: {value!r}")


def repair_evidence(raw: list[str], known: set[str], repairs: Repairs) -> tuple[str, ...]:
    """Split "D8:6; D9:17", fix "D:11:26" and "D30:05", drop ids that name no turn."""
    result: list[str] = []
    for item in raw:
        parts = [p.strip() for p in re.split(r"[;,]", item) if p.strip()]
        if len(parts) > 1:
            repairs.counts["split"] += 1
        for part in parts:
            match = _DIA_ID.match(part)
            if match is None:
                repairs.counts["dropped_malformed"] += 1
                continue
            dia_id = f"D{int(match.group(1))}:{int(match.group(2))}"
            if dia_id != part:
                repairs.counts["rewritten"] += 1
            if dia_id not in known:
                repairs.counts["dropped_unknown_turn"] += 1
                continue
            if dia_id not in result:
                result.append(dia_id)
    return tuple(result)


def _turns(conversation: dict[str, JsonValue]) -> list[Turn]:
    turns: list[Turn] = []
    sessions = sorted(
        (int(m.group(1)), key) for key in conversation if (m := _SESSION.match(key)) is not None
    )
    for number, key in sessions:
        items = conversation[key]
        when = conversation.get(f"{key}_date_time")
        if not isinstance(items, list) or not items or not isinstance(when, str):
            continue
        start = parse_session_time(when)
        for index, item in enumerate(items):
            if not isinstance(item, dict):
                continue
            caption = item.get("blip_caption")
            turns.append(
                Turn(
                    dia_id=str(item["dia_id"]),
                    speaker=str(item["speaker"]),
                    text=str(item.get("text") or ""),
                    caption=caption if isinstance(caption, str) and caption else None,
                    session=number,
                    index=index,
                    # The data gives one time per session; turns follow each other a second
                    # apart so that their order survives (see bench/README.md).
                    at=start + timedelta(seconds=index),
                )
            )
    return turns


def load(path: Path) -> tuple[list[Conversation], Repairs]:
    """Read a LoCoMo-format file (a list of samples), repairing evidence ids as needed."""
    samples = json.loads(path.read_text())
    if not isinstance(samples, list):
        raise ValueError(f"{path}: expected a list of LoCoMo samples")
    repairs = Repairs()
    conversations: list[Conversation] = []
    for position, sample in enumerate(samples):
        conversation = sample["conversation"]
        turns = _turns(conversation)
        known = {turn.dia_id for turn in turns}
        questions: list[Question] = []
        for qa in sample.get("qa", []):
            evidence = repair_evidence([str(e) for e in qa.get("evidence", [])], known, repairs)
            if not evidence:
                repairs.counts["skipped_question_without_evidence"] += 1
                continue
            questions.append(Question(str(qa["question"]), int(qa["category"]), evidence))
        conversations.append(
            Conversation(
                sample_id=str(sample.get("sample_id") or f"sample-{position}"),
                speakers=(str(conversation["speaker_a"]), str(conversation["speaker_b"])),
                turns=turns,
                questions=questions,
            )
        )
    return conversations, repairs


def describe(
    path: Path, conversations: list[Conversation], repairs: Repairs
) -> dict[str, JsonValue]:
    """What a result says of its data: the file's name and hash, counts, repairs, categories
    (no text of it)."""
    return {
        "file": path.name,
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest()[:16],
        "conversations": len(conversations),
        "turns": sum(len(c.turns) for c in conversations),
        "questions": sum(len(c.questions) for c in conversations),
        "repairs": repairs.as_json(),
        "categories": {
            category_name(number): count
            for number, count in sorted(
                Counter(q.category for c in conversations for q in c.questions).items()
            )
        },
    }
