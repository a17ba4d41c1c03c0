"""Working memory of a session with efforts (seed 002, "Bounded Working Context"). Pure.

A turn is a user message appended to the session (`ConversationSession.turns`); an effort's
`last_referenced_turn` is the last turn that opened, concluded, expanded or referred to it.
With `idle` = the session's turn less that one:

- an open effort's messages are raw in working memory;
- an expanded effort's too while `idle < expanded_decay_turns` (expanded at turn 23 with the
  default 3: raw at 23, 24, 25, concluded again at 26, when the append of that turn collapses it);
- a concluded effort is shown by its summary while `idle <= summary_eviction_turns` (referenced at
  turn 1 with the default 20: still shown at turn 21, evicted at 22), or while it was concluded
  fewer than `concluded_grace_turns` turns ago; else it is evicted from working memory: still
  listed, searchable and expandable;
- ambient messages (appended while no effort was open) are kept from the `ambient_window`-th last
  user message among them on.

The summaries shown go in the context under `## Efforts`, best (most recently referenced) first
while they fit; when any concluded effort is not shown, `## Memory` says how to find it.
"""

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from app.context.render import SEPARATOR
from app.context.types import Tokens
from app.core.config import EffortSettings

Placement = Literal["raw", "summary", "evicted"]
EFFORTS_HEADER = "## Efforts"
MEMORY_HEADER = "## Memory"
PENDING = "(its summary is being written)"


@dataclass(frozen=True, slots=True)
class EffortView:
    """What working memory needs of an effort."""

    effort_id: uuid.UUID
    name: str
    title: str
    state: str
    summary: str | None
    last_referenced_turn: int
    concluded_turn: int | None


def placement(effort: EffortView, turn: int, settings: EffortSettings) -> Placement:
    """How the effort is in working memory at `turn` (the module's rule)."""
    if effort.state == "open":
        return "raw"
    idle = turn - effort.last_referenced_turn
    if effort.state == "expanded" and idle < settings.expanded_decay_turns:
        return "raw"
    if idle <= settings.summary_eviction_turns:
        return "summary"
    concluded = effort.concluded_turn
    if concluded is not None and turn - concluded < settings.concluded_grace_turns:
        return "summary"
    return "evicted"


def effort_line(effort: EffortView) -> str:
    """`[effort e_4 concluded: title] summary`, on one line."""
    body = " ".join(effort.summary.split()) if effort.summary else PENDING
    return f"[effort {effort.name} concluded: {' '.join(effort.title.split())}] {body}"


def memory_note(hidden: int, session: str) -> str:
    """Seed 002's "## Memory" paragraph: older efforts exist, and how to find them (the tools
    take the session's id, which the model has no other way to know)."""
    efforts = "effort is" if hidden == 1 else "efforts are"
    return (
        f"{MEMORY_HEADER}\nConcluded effort summaries are shown only while recently referenced; "
        f"{hidden} older {efforts} still stored. Use search_memory(query, "
        f'session_id="{session}") to find past efforts not shown here, then '
        f'expand_effort(session_id="{session}", effort_id) for their full messages.'
    )


def section(shown: Sequence[EffortView], hidden: int, session: str) -> str:
    """The efforts' part of the context: the summaries shown, in effort order, and the note
    when `hidden` efforts are not shown."""
    parts = []
    if shown:
        ordered = sorted(shown, key=lambda effort: int(effort.name.removeprefix("e_")))
        parts.append("\n".join([EFFORTS_HEADER, *(effort_line(e) for e in ordered)]))
    if hidden:
        parts.append(memory_note(hidden, session))
    return SEPARATOR.join(parts)


@dataclass(frozen=True)
class EffortsFit:
    """The context with the efforts' part: its text and tokens, the summaries shown, those that
    did not fit, whether the note is there, and the tokens the part added."""

    text: str
    tokens: int
    shown: tuple[EffortView, ...] = ()
    dropped: tuple[EffortView, ...] = ()
    note: bool = False
    added: int = 0


def fit_efforts(
    tokens: Tokens,
    context: str,
    context_tokens: int,
    wanted: Sequence[EffortView],
    evicted: int,
    room: int,
    session: str,
) -> EffortsFit:
    """The summaries `wanted` (best first) that fit with the context in `room` tokens, and the
    note when `evicted` efforts (or any that did not fit) are not shown; the whole text is
    counted again at each step (tokens do not add up across a join)."""

    def joined(shown: Sequence[EffortView], hidden: int) -> str:
        part = section(shown, hidden, session)
        return SEPARATOR.join(p for p in (context, part) if p) if part else context

    chosen: list[EffortView] = []
    dropped: list[EffortView] = []
    for effort in wanted:
        hidden = evicted + len(dropped) + (len(wanted) - len(chosen) - len(dropped) - 1)
        # Counted with the note whenever something may stay hidden: it comes last.
        if tokens.count(joined([*chosen, effort], hidden)) <= room:
            chosen.append(effort)
        else:
            dropped.append(effort)
    hidden = evicted + len(dropped)
    while True:
        text = joined(chosen, hidden)
        count = tokens.count(text) if text != context else context_tokens
        if count <= room or (not chosen and not hidden):
            break
        if chosen:
            dropped.append(chosen.pop())
            hidden += 1
        else:
            hidden = 0  # not even the note fits
    if count > room:  # the context alone: nothing of the efforts' part fits
        text, count = context, context_tokens
    return EffortsFit(
        text, count, tuple(chosen), tuple(dropped), hidden > 0, count - context_tokens
    )
