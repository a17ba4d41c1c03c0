"""The history step of a build whose session has efforts: its working memory
(`app/efforts/working.py`) in place of the whole conversation, inside the same promise.

Read: the sinks, the raw messages of open and still-expanded efforts, and the ambient window;
the history is chosen among them as for any session (`select_history`: sinks, fresh tail,
newest first). The summaries shown and the `## Memory` note go after the context while the
context with them and the sinks and fresh tail fit available; the history is then chosen again
in what they leave, so the context's tokens plus the history's stay within available. Recall
and span summaries are not used here: the efforts' summaries stand for what left working
memory, and search finds the rest.
"""

import asyncio
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.context.history.choice import HistoryChoice, HistoryMessage, select_history
from app.context.history.recall import protected_tokens
from app.context.text.render import SEPARATOR, append_section
from app.core.context_config import EffortSettings, WindowSettings
from app.efforts.repository import EffortRepository, WorkingRow
from app.efforts.working import EffortView, Placement, placement, view
from app.providers.tokenizer import Tokens
from app.sessions.history_repository import SessionState

EFFORTS_HEADER = "## Efforts"
MEMORY_HEADER = "## Memory"
PENDING = "(its summary is being written)"


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
    note when `evicted` efforts (or any that did not fit) are not shown; the text is counted
    again at each step (tokens do not add up across a join), the context only from its last
    line (`render.append_section`)."""

    def joined(shown: Sequence[EffortView], hidden: int) -> tuple[str, int]:
        return append_section(tokens, context, context_tokens, section(shown, hidden, session))

    chosen: list[EffortView] = []
    dropped: list[EffortView] = []
    for effort in wanted:
        hidden = evicted + len(dropped) + (len(wanted) - len(chosen) - len(dropped) - 1)
        # Counted with the note whenever something may stay hidden: it comes last.
        if joined([*chosen, effort], hidden)[1] <= room:
            chosen.append(effort)
        else:
            dropped.append(effort)
    hidden = evicted + len(dropped)
    while True:
        text, count = joined(chosen, hidden)
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


@dataclass(frozen=True)
class Worked:
    """The history chosen from working memory, the context with the efforts' part (text and
    tokens), and the manifest's `history.efforts`."""

    choice: HistoryChoice
    text: str
    tokens: int
    read: dict[str, Any]


async def working_history(
    session: AsyncSession,
    tokens: Tokens,
    conversation: SessionState,
    window: WindowSettings,
    context: tuple[str, int],
    available: int,
    settings: EffortSettings,
) -> Worked | None:
    """The history from the session's working memory and the context with its efforts' part;
    None for a session that never had an effort (its history is chosen as before)."""
    repository = EffortRepository(session)
    efforts = [view(e) for e in await repository.for_session(conversation.id)]
    if not efforts:
        return None
    turn = conversation.turns
    placed = {e.effort_id: placement(e, turn, settings) for e in efforts}
    raw = [e.effort_id for e in efforts if placed[e.effort_id] == "raw"]
    start = await repository.ambient_from(conversation.id, settings.ambient_window)
    rows = await repository.working_messages(
        conversation.id, sinks=window.sinks, raw=raw, ambient_from=start or 0
    )
    # An effort whose messages are all sinks is in the history raw already: not its summary too.
    opening = {r.effort_id for r in rows if r.seq < window.sinks and r.effort_id is not None}
    if opening:
        placed |= dict.fromkeys(await repository.within(list(opening), window.sinks), "raw")
    wanted = sorted(
        (e for e in efforts if placed[e.effort_id] == "summary"),
        key=lambda e: (-e.last_referenced_turn, e.name),
    )
    evicted = sum(1 for e in efforts if placed[e.effort_id] == "evicted")
    text, count = context
    choice, fit = await asyncio.to_thread(
        choose, tokens, rows, window, (text, count), wanted, evicted, available, conversation.name
    )
    read = _read(efforts, placed, fit, choice, rows, turn) | {
        "ambient_window": settings.ambient_window,
        "ambient_from_seq": start or 0,
    }
    return Worked(choice, fit.text, fit.tokens, read)


def choose(
    tokens: Tokens,
    rows: list[WorkingRow],
    window: WindowSettings,
    context: tuple[str, int],
    wanted: list[EffortView],
    evicted: int,
    available: int,
    session: str,
) -> tuple[HistoryChoice, EffortsFit]:
    """The history in what the context leaves, the efforts' part in what the context and the
    sinks and fresh tail leave, and the history again in what that leaves."""
    text, count = context
    messages = [HistoryMessage(r.seq, r.role, r.content, r.name, r.tool_call_id) for r in rows]
    sinks, tail = window.sinks, window.fresh_tail
    choice = select_history(tokens, messages, available - count, sinks=sinks, fresh_tail=tail)
    room = available - protected_tokens(tokens, choice)
    fit = fit_efforts(tokens, text, count, wanted, evicted, room, session)
    if fit.added:
        again = select_history(
            tokens,
            choice.kept,
            available - fit.tokens,
            sinks=choice.sinks,
            fresh_tail=choice.fresh_tail,
        )
        choice = HistoryChoice(
            again.kept, again.sinks, again.fresh_tail, again.tokens, choice.reason
        )
    return choice, fit


def _read(
    efforts: list[EffortView],
    placed: dict[uuid.UUID, Placement],
    fit: EffortsFit,
    choice: HistoryChoice,
    rows: list[WorkingRow],
    turn: int,
) -> dict[str, Any]:
    """The manifest's `history.efforts`: how each effort was shown."""
    of_seq = {r.seq: r.effort_id for r in rows}
    kept: dict[uuid.UUID, int] = {}
    for message in choice.kept:
        owner = of_seq.get(message.seq)
        if owner is not None:
            kept[owner] = kept.get(owner, 0) + 1
    shown = {e.effort_id for e in fit.shown}
    items = []
    for effort in efforts:
        how: str = placed[effort.effort_id]
        if how == "summary" and effort.effort_id not in shown:
            how = "dropped"
        items.append(
            {
                "effort_id": effort.name,
                "title": effort.title,
                "state": effort.state,
                "shown": how,
                "messages_kept": kept.get(effort.effort_id, 0),
                "last_referenced_turn": effort.last_referenced_turn,
            }
        )
    return {"turn": turn, "tokens": fit.added, "memory_note": fit.note, "efforts": items}
