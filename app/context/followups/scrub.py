"""An erased memory's text leaves the stored builds that showed it, its place kept. Pure.

A stored build is the response as it was returned. When one of its memories is erased, its
lines in `context` become `- [erased]`, a premise note that may quote it is replaced, and the
build's `erased` names it (id, kind, time): its ids, scores and token counts stay, so the build
still says what it was made of. Its lines are found by position where the manifest gives it —
the i-th item of the decisions, facts, Past Learnings and constraints layers is the i-th item
of that section, whatever its text read then (a decision's outcome may have been amended
since) — and everywhere by the texts the memory shows now (a procedure's own section, an
episode on the timeline, an excerpt's passages).
"""

import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from pydantic import JsonValue

from app.context.history.learnings import LEARNINGS_HEADER
from app.context.schemas import ContextBuildResponse
from app.context.text.render import SECTION_TITLES, SEPARATOR, bullet, procedure_section
from app.context.text.schemas import ErasedRead, LayerRead, PremiseRead

MARKER = "[erased]"
ERASED_ITEM = bullet(MARKER)
ERASED_NOTE = "Note: a memory quoted here was erased."
# The layers whose items are the items of one section, in the manifest's order.
LISTED = {
    "decisions": f"## {SECTION_TITLES['decision']}",
    "facts": f"## {SECTION_TITLES['fact']}",
    "learnings": LEARNINGS_HEADER,
    "censors": "## Active Constraints",
}
_TIMELINE = f"## {SECTION_TITLES['episode']}"
_PASSAGES = " … "  # between an excerpt's passages (`retrieval/search_sql.py` `EXCERPT`)
_MIN_PASSAGE = 20  # characters: a shorter passage may be anyone's words


@dataclass(frozen=True)
class ErasedMemory:
    """What an erased memory showed, to find it in stored builds; kept only while erasing."""

    memory_id: uuid.UUID
    kind: str
    erased_at: datetime
    # Each block of text it shows now, as rendered, with what replaces it.
    shown: tuple[tuple[str, str], ...]
    full_text: str


def _text(fields: Mapping[str, JsonValue], key: str) -> str:
    value = fields.get(key)
    return value.strip() if isinstance(value, str) else ""


def shown_blocks(
    kind: str, micro: str, summary: str, fields: Mapping[str, JsonValue]
) -> tuple[tuple[str, str], ...]:
    """The blocks a memory of `kind` shows in a context now, longest first: its items at
    every detail, a decision's or procedure's lesson, a procedure's own section, a censor's
    constraint as a warning and as a block."""
    items = {bullet(micro), bullet(summary)}
    sections: set[str] = set()
    if kind == "decision" and (notes := _text(fields, "outcome_notes")):
        items.add(bullet(f"{summary.strip()}\nOutcome: {notes}"))
    if kind == "procedure" and (name := _text(fields, "name")):
        items.add(bullet(f"{name}: {summary.strip()}"))
        sections.add(procedure_section(name, summary))
    if kind == "censor":
        pattern, reason = _text(fields, "trigger_pattern"), _text(fields, "reason")
        items |= {f"- {action}: {pattern} — {reason}" for action in ("WARN", "BLOCK")}
    blocks = [(item, ERASED_ITEM) for item in items if item.strip("- ")]
    blocks += [(section, f"## Procedure: {MARKER}") for section in sections]
    return tuple(sorted(blocks, key=lambda block: -len(block[0])))


Block = tuple[bool, list[str]]  # an item or not, and its lines


def _blocks(lines: list[str], *, timeline: bool = False) -> list[Block]:
    """A section's lines after its header, each item a `- ` line with the lines under it. On
    the timeline, a line that is not indented (a day's) stands alone; elsewhere every line
    belongs to the item above it (a censor's text is not indented), and a line before the
    first item stands alone."""
    blocks: list[Block] = []
    for line in lines:
        standalone = timeline and not line.startswith("  ")
        if line.startswith("- "):
            blocks.append((True, [line]))
        elif blocks and blocks[-1][0] and not standalone:
            blocks[-1][1].append(line)
        else:
            blocks.append((False, [line]))
    return blocks


def _joined(header: str, blocks: list[Block]) -> str:
    return "\n".join([header, *(line for _item, lines in blocks for line in lines)])


def _by_position(context: str, header: str, count: int, positions: list[int]) -> str:
    """The items at `positions` of each section under `header` that is `count` items alone."""
    sections = context.split(SEPARATOR)
    for index, section in enumerate(sections):
        lines = section.split("\n")
        blocks = _blocks(lines[1:]) if lines[0] == header else []
        if len(blocks) != count or not all(item for item, _lines in blocks):
            continue
        for position in positions:
            blocks[position] = (True, [ERASED_ITEM])
        sections[index] = _joined(header, blocks)
    return SEPARATOR.join(sections)


def _words(text: str) -> str:
    return " ".join(text.split())


def _excerpts(context: str, full_text: str) -> str:
    """Timeline items made only of passages of `full_text`: an excerpt of it."""
    whole = _words(full_text)
    sections = context.split(SEPARATOR)
    for index, section in enumerate(sections):
        lines = section.split("\n")
        if lines[0] != _TIMELINE:
            continue
        blocks = _blocks(lines[1:], timeline=True)
        for position, (item, item_lines) in enumerate(blocks):
            passages = _words(" ".join(item_lines).removeprefix("- ")).split(_PASSAGES)
            if item and all(len(p) >= _MIN_PASSAGE and p in whole for p in passages):
                blocks[position] = (True, [ERASED_ITEM])
        sections[index] = _joined(lines[0], blocks)
    return SEPARATOR.join(sections)


def _by_text(context: str, shown: tuple[tuple[str, str], ...]) -> str:
    """Whole blocks that read as the memory reads now: a line start before, and after, the
    end of the text or a line that is not indented under it."""
    for block, replacement in shown:
        pattern = re.compile(rf"(?<![^\n]){re.escape(block)}(?=\n(?! )|$)")
        context = pattern.sub(replacement.replace("\\", "\\\\"), context)
    return context


def _premise(premise: PremiseRead, memory_id: uuid.UUID) -> PremiseRead:
    # Only a contradiction quotes a memory (the first that denies it, maybe not this one).
    if memory_id not in premise.memory_ids or premise.status != "contradicted":
        return premise
    return premise.model_copy(update={"note": ERASED_NOTE})


def scrub(build: ContextBuildResponse, erased: ErasedMemory) -> ContextBuildResponse:
    """The build without the erased memory's text, naming it in `erased`."""
    context = build.context
    for layer in build.layers:
        positions = _positions(layer, erased.memory_id)
        if positions and layer.name in LISTED:
            context = _by_position(context, LISTED[layer.name], len(layer.items), positions)
        elif any(layer.items[position].detail == "excerpt" for position in positions):
            context = _excerpts(context, erased.full_text)
    context = _by_text(context, erased.shown)
    premises = [_premise(premise, erased.memory_id) for premise in build.premises]
    for before, after in zip(build.premises, premises, strict=True):
        if before.in_context and before.note != after.note:
            context = _by_text(context, ((before.note, after.note),))
    named = ErasedRead.model_validate(
        {"memory_id": erased.memory_id, "kind": erased.kind, "erased_at": erased.erased_at}
    )
    return build.model_copy(
        update={"context": context, "premises": premises, "erased": [*build.erased, named]}
    )


def _positions(layer: LayerRead, memory_id: uuid.UUID) -> list[int]:
    return [index for index, item in enumerate(layer.items) if item.memory_id == memory_id]
