"""The history step of a build whose session has efforts: its working memory (`working.py`) in
place of the whole conversation, inside the same promise.

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
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.context.history import HistoryChoice, HistoryMessage, select_history
from app.context.recall import protected_tokens
from app.context.types import Tokens
from app.core.config import EffortSettings, WindowSettings
from app.efforts.models import SessionEffort
from app.efforts.repository import EffortRepository, WorkingRow
from app.efforts.working import EffortsFit, EffortView, Placement, fit_efforts, placement
from app.sessions.models import ConversationSession


@dataclass(frozen=True)
class Worked:
    """The history chosen from working memory, the context with the efforts' part (text and
    tokens), and the manifest's `history.efforts`."""

    choice: HistoryChoice
    text: str
    tokens: int
    read: dict[str, Any]


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


async def working_history(
    session: AsyncSession,
    tokens: Tokens,
    conversation: ConversationSession,
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
