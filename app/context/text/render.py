"""The render step: the text of every section of a context. Pure.

The fixed sections (identity, active constraints, current approach, current focus, note) are
rendered and fitted to their caps here; the memories' lines are rendered once each (the fill
step counts their tokens) and put in their sections: decisions, facts and procedures best
first, past experience in time order under a line for each day. Stable sections come first, so
consecutive builds share a prefix that prompt caches reuse.
"""

import functools
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime

from pydantic import JsonValue

from app.context.selection.budget import FIXED_ORDER, fixed_cap
from app.context.types import FLEXIBLE_KINDS, Censor, Detail, FlexibleKind, Frame, Included, Scored
from app.providers.tokenizer import Tokens, count_extended

SECTION_TITLES: dict[FlexibleKind, str] = {
    "decision": "Relevant Past Decisions",
    "fact": "Known Information",
    "procedure": "Procedures",
    "episode": "Past Experience",
}
SEPARATOR = "\n\n"
# The fixed sections before the memories, in order; the note comes after them.
LEADING = ("identity", "censors", "frame", "working_memory")


@dataclass(frozen=True)
class FixedContent:
    """What the always-present sections hold before they are fitted."""

    identity: str
    censors: Sequence[Censor]  # the chosen ones, in the order they are shown
    frame: Frame
    working_memory: str
    calibration: str | None


@dataclass
class FixedSections:
    """The fitted text of each fixed section (None when left out), and each one's cap."""

    sections: dict[str, str | None] = field(default_factory=dict)
    caps: dict[str, int] = field(default_factory=dict)
    # The constraints' items in the text, in order: each censor's id and its item, which spans
    # several lines when the censor's text does.
    censor_items: list[tuple[uuid.UUID, str]] = field(default_factory=list)

    def shown_censors(self) -> list[tuple[uuid.UUID, str]]:
        """The censors whose items are in the text, with those items."""
        return self.censor_items if self.sections.get("censors") is not None else []

    def drop_last_censor(self) -> None:
        """Take the last constraint out of the text; the section goes with its last one."""
        self.censor_items.pop()
        self.sections["censors"] = _censor_section(self.censor_items)

    def used(self, tokens: Tokens) -> int:
        """Tokens of the sections present, each with the blank line before the next."""
        return sum(tokens.count(s) + 1 for s in self.sections.values() if s is not None)


def bullet(text: str) -> str:
    """A list item whose later lines are indented under its bullet: a user's line breaks stay
    inside the item and cannot start a heading or an item of their own."""
    return "- " + text.strip().replace("\n", "\n  ")


def one_line(text: str) -> str:
    """A text that must stay on one line (a heading's), its line breaks as spaces."""
    return " ".join(text.split())


def _strings(value: JsonValue) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def identity_text(identity: Mapping[str, JsonValue]) -> str:
    """'Newton. Analytical, cautious.' plus the description and core rules."""
    name = identity.get("name")
    parts = [f"{name}." if isinstance(name, str) and name else ""]
    traits = _strings(identity.get("traits"))
    if traits:
        parts.append(", ".join(traits).capitalize() + ".")
    description = identity.get("description")
    if isinstance(description, str) and description:
        parts.append(description)
    text = " ".join(p for p in parts if p)
    rules = _strings(identity.get("core_rules"))
    if rules:
        text += "\nCore rules:\n" + "\n".join(bullet(rule) for rule in rules)
    return text.strip()


def working_memory_text(working_memory: Mapping[str, JsonValue]) -> str:
    """The current task and the open threads."""
    task = working_memory.get("current_task")
    text = task if isinstance(task, str) else ""
    threads = _strings(working_memory.get("open_threads"))
    if threads:
        text += "\nOpen threads:\n" + "\n".join(bullet(thread) for thread in threads)
    return text.strip()


def own_section(scored: Scored, detail: Detail) -> bool:
    """A procedure at summary detail is a section of its own, `## Procedure: <name>`; every
    other memory is an item in its kind's list."""
    candidate = scored.candidate
    return candidate.kind == "procedure" and detail != "micro" and bool(candidate.title)


def render_item(scored: Scored, detail: Detail) -> str:
    """One list item (multi-line summaries indented under their bullet), or a procedure's
    own section."""
    candidate = scored.candidate
    text = {"summary": candidate.summary, "excerpt": candidate.excerpt or candidate.summary}.get(
        detail, candidate.micro
    )
    if own_section(scored, detail):
        return procedure_section(candidate.title or "", text)
    return bullet(text)


def procedure_section(title: str, text: str) -> str:
    """A procedure at summary detail: a section of its own."""
    return f"## Procedure: {one_line(title)}\n{text.strip()}"


def date_line(scored: Scored) -> str:
    """The line above past experiences of one day (they are listed in time order)."""
    return _day_line(scored.candidate.occurred_at.date())


@functools.lru_cache(maxsize=4096)
def _day_line(day: date) -> str:
    return f"On {day:%-d %B %Y}:"


def section_header(kind: FlexibleKind) -> str:
    return f"## {SECTION_TITLES[kind]}"


def _fit_frame(tokens: Tokens, header: str, frame: Frame, limit: int) -> str | None:
    """The frame's description (cut back to its last whole sentence when it must be cut),
    then as many of its questions as fit, each whole: half a question misleads."""
    description = frame.description.strip()
    section = _fit_text(tokens, header, description, limit) if description else header
    if section is None or (description and not section.endswith(description)):
        return _whole_sentences(section, header)
    asked: list[str] = []
    for question in frame.questions:
        fuller = f"{section}\nConsider:\n" + "\n".join(map(bullet, [*asked, question]))
        if tokens.count(fuller) > limit:
            break
        asked.append(question)
    if not asked:
        return section if description else None
    return f"{section}\nConsider:\n" + "\n".join(map(bullet, asked))


def _whole_sentences(section: str | None, header: str) -> str | None:
    """A cut description back to the end of its last whole sentence, when it has one."""
    if section is None:
        return None
    body = section[len(header) + 1 :]
    end = max(body.rfind(mark) for mark in (". ", "? ", "! ", ".\n"))
    return f"{header}\n{body[: end + 1]}" if end > 0 else section


def _fit_text(tokens: Tokens, header: str, body: str, limit: int) -> str | None:
    if not body.strip() or limit <= 0:
        return None
    section = f"{header}\n{body}"
    if tokens.count(section) <= limit:
        return section
    room = limit - tokens.count(header) - 1
    if room < 4:
        return None
    return f"{header}\n{tokens.truncate(body, room)}"


_CENSORS_HEADER = "## Active Constraints"


def censor_item(censor: Censor) -> str:
    """A constraint as its list item: the action, the trigger on one line, then the reason."""
    return bullet(f"{censor.action.upper()}: {one_line(censor.pattern)} — {censor.reason}")


def _censor_section(items: Sequence[tuple[uuid.UUID, str]]) -> str | None:
    return "\n".join([_CENSORS_HEADER, *(item for _, item in items)]) if items else None


def _fit_censors(
    tokens: Tokens, censors: Sequence[Censor], limit: int, shown: list[tuple[uuid.UUID, str]]
) -> str | None:
    """The chosen censors in their order, as many as fit (with their items, in `shown`)."""
    for censor in censors:
        item = (censor.memory_id, censor_item(censor))
        if tokens.count(_censor_section([*shown, item]) or "") <= limit:
            shown.append(item)
    return _censor_section(shown)


def _fixed_section(
    tokens: Tokens, layer: str, content: FixedContent, cap: int, fixed: FixedSections
) -> str | None:
    if layer == "identity":
        return _fit_text(tokens, "## Identity", content.identity, cap)
    if layer == "censors":
        return _fit_censors(tokens, content.censors, cap, fixed.censor_items)
    if layer == "working_memory":
        return _fit_text(tokens, "## Current Focus", content.working_memory, cap)
    if layer == "frame":
        header = f"## Current Approach: {content.frame.name.replace('_', ' ').title()}"
        return _fit_frame(tokens, header, content.frame, cap)
    return _fit_text(tokens, "## Note", content.calibration or "", cap)


def fit_fixed(tokens: Tokens, content: FixedContent, budget: int) -> FixedSections:
    """Each fixed section within its cap, filled in order so the last give way first."""
    fixed = FixedSections()
    remaining = budget
    for layer in FIXED_ORDER:
        cap = min(fixed_cap(layer, budget), remaining)
        fixed.caps[layer] = cap
        section = _fixed_section(tokens, layer, content, cap, fixed)
        fixed.sections[layer] = section
        if section is not None:
            remaining -= tokens.count(section) + 1  # +1: the blank line before the next section
    return fixed


def _timeline_key(item: Included) -> tuple[datetime, int]:
    candidate = item.scored.candidate
    return (candidate.occurred_at, candidate.seq)


def _timeline(items: Sequence[Included]) -> list[str]:
    """Past experiences in the order they happened, under a line for each day."""
    lines: list[str] = []
    day = None
    for item in sorted(items, key=_timeline_key):
        if (current := date_line(item.scored)) != day:
            day = current
            lines.append(current)
        lines.append(item.line)
    return lines


def render(fixed: FixedSections, chosen: Mapping[FlexibleKind, Sequence[Included]]) -> str:
    """The whole context: the leading fixed sections, the memories by kind, then the note."""
    sections: list[str] = []
    for layer in LEADING:
        if (section := fixed.sections.get(layer)) is not None:
            sections.append(section)
    for kind in FLEXIBLE_KINDS:
        items = sorted(chosen[kind], key=lambda i: -i.scored.score)
        own = [item for item in items if own_section(item.scored, item.detail)]
        listed = [item for item in items if not own_section(item.scored, item.detail)]
        lines = _timeline(listed) if kind == "episode" else [item.line for item in listed]
        sections.extend(item.line for item in own)
        if lines:
            sections.append(section_header(kind) + "\n" + "\n".join(lines))
    if (note := fixed.sections.get("calibration")) is not None:
        sections.append(note)
    return SEPARATOR.join(sections)


def append_section(
    tokens: Tokens, context: str, context_tokens: int, section: str
) -> tuple[str, int]:
    """The context followed by a section (`SEPARATOR` between them when both have text) and
    its exact tokens, counted from the context's own count and its last line
    (`count_extended`): a section added after a long context costs its own length to count."""
    if not section:
        return context, context_tokens
    if not context:
        return section, tokens.count(section)
    joined = SEPARATOR + section
    return context + joined, count_extended(tokens, context, context_tokens, joined)
