"""The history step of a build with a session: the session's messages read (only those a
selection can use), selected on a thread (`history.py`), and accounted for the manifest.

Later steps slot in here: the summaries of evicted spans go before the kept messages, and
evicted messages the input refers to come back as recalled, both inside the same budget.
"""

import asyncio
import uuid
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from app.context.history import HistoryChoice, HistoryMessage, reach, select_history
from app.context.types import Tokens
from app.context.window import available
from app.core.config import WindowSettings
from app.sessions.repository import SessionRepository

_NONE = HistoryChoice(kept=(), sinks=0, fresh_tail=0, tokens=0)


@dataclass(frozen=True)
class History:
    """A session's history as a build chose it, within `budget` chat tokens."""

    session_id: str
    in_session: int
    window: WindowSettings
    budget: int
    choice: HistoryChoice


async def history(
    session: AsyncSession,
    tokens: Tokens,
    agent_id: uuid.UUID,
    session_id: str,
    window: WindowSettings,
    budget: int,
) -> History:
    """The messages of the agent's session that fit `budget`; none for a session that has no
    message yet (its first message creates it: building before is no error)."""
    repository = SessionRepository(session)
    conversation = await repository.get(agent_id, session_id)
    if conversation is None:
        return History(session_id, 0, window, budget, _NONE)
    count = conversation.message_count
    rows = await repository.ends(
        conversation.id, first=window.sinks, last_from=count - reach(budget, window.fresh_tail)
    )
    messages = [
        HistoryMessage(row.seq, row.role, row.content, row.name, row.tool_call_id) for row in rows
    ]
    # Tokenizing a long session is CPU work: off the event loop.
    choice = await asyncio.to_thread(
        select_history,
        tokens,
        messages,
        budget,
        sinks=window.sinks,
        fresh_tail=window.fresh_tail,
    )
    return History(session_id, count, window, budget, choice)


def history_read(found: History, memory_budget: int) -> dict[str, object]:
    """The manifest's `history`, as plain data."""
    choice, window = found.choice, found.window
    evictable = [m.seq for m in choice.kept[choice.sinks : len(choice.kept) - choice.fresh_tail]]
    tail = [m.seq for m in choice.kept[len(choice.kept) - choice.fresh_tail :]]
    after_sinks = evictable or tail
    return {
        "session_id": found.session_id,
        "messages_in_session": found.in_session,
        "fresh_tail": choice.fresh_tail,
        "sinks": choice.sinks,
        "kept": len(choice.kept),
        "evicted": found.in_session - len(choice.kept),
        "first_kept_seq": after_sinks[0] if after_sinks else None,
        "summaries": [],
        "recalled": [],
        "tokens": choice.tokens,
        "window": window.model_dump()
        | {
            "available": available(window),
            "memory_budget": memory_budget,
            "history_budget": found.budget,
        },
        "reason": choice.reason,
    }


def chat_messages(found: History) -> list[dict[str, object]]:
    """The kept messages in the OpenAI chat format."""
    return [
        {
            "role": m.role,
            "content": m.content,
            "name": m.name,
            "tool_call_id": m.tool_call_id,
        }
        for m in found.choice.kept
    ]
