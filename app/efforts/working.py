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
while they fit; when any concluded effort is not shown, `## Memory` says how to find it: the
history step's `app/context/history/efforts.py`.
"""

import uuid
from dataclasses import dataclass
from typing import Literal

from app.core.context_config import EffortSettings
from app.efforts.models import SessionEffort

Placement = Literal["raw", "summary", "evicted"]


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


def view(effort: SessionEffort) -> EffortView:
    return EffortView(
        effort.id,
        effort.effort_id,
        effort.title,
        effort.state,
        effort.summary,
        effort.last_referenced_turn,
        effort.concluded_turn,
    )
