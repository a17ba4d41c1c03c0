"""The history step of a build with a session: the session's messages read (only those a
selection can use), selected on a thread (`history.py`), the evicted messages the input clearly
refers to recalled into the context (`recall.py`), and accounted for the manifest.

A later step slots in here: the summaries of evicted spans go before the kept messages, inside
the same budget.
"""

import asyncio
import uuid
from collections.abc import Collection
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from app.context.clock import Clock
from app.context.history import HistoryChoice, HistoryMessage, reach, select_history
from app.context.recall import Recall, RecallHit, recall_into, words_needed
from app.context.types import Tokens
from app.context.window import available
from app.core.config import WindowSettings
from app.sessions.models import ConversationSession
from app.sessions.repository import SessionRepository

_NONE = HistoryChoice(kept=(), sinks=0, fresh_tail=0, tokens=0)


@dataclass(frozen=True)
class History:
    """A session's history as a build chose it, within `budget` chat tokens, and the context's
    whole text with the messages it recalled."""

    session_id: str
    in_session: int
    window: WindowSettings
    budget: int
    choice: HistoryChoice
    recall: Recall


@dataclass(frozen=True)
class ForInput:
    """What the history is chosen around: the memory context (its text and tokens), and the
    input's words as PostgreSQL stems them."""

    context: str
    tokens: int
    words: Collection[str]


async def history(
    session: AsyncSession,
    tokens: Tokens,
    agent_id: uuid.UUID,
    session_id: str,
    window: WindowSettings,
    built: ForInput,
    *,
    recall_max: int,
    clock: Clock,
) -> History:
    """The messages of the agent's session that fit what the context left of available, and
    at most `recall_max` evicted ones the input clearly refers to; none for a session that has
    no message yet (its first message creates it: building before is no error)."""
    repository = SessionRepository(session)
    conversation = await repository.get(agent_id, session_id)
    budget = available(window) - built.tokens
    unchanged = Recall(built.context, built.tokens)
    if conversation is None:
        return History(session_id, 0, window, budget, _NONE, unchanged)
    choice = await _select(repository, conversation, tokens, window, budget)
    clock.lap("history")
    found = History(session_id, conversation.message_count, window, budget, choice, unchanged)
    if recall_max and built.words and found.in_session > len(choice.kept):
        found = await _recall(repository, conversation.id, tokens, found, built, recall_max)
        clock.lap("recall")
    return found


async def _select(
    repository: SessionRepository,
    conversation: ConversationSession,
    tokens: Tokens,
    window: WindowSettings,
    budget: int,
) -> HistoryChoice:
    count = conversation.message_count
    rows = await repository.ends(
        conversation.id, first=window.sinks, last_from=count - reach(budget, window.fresh_tail)
    )
    messages = [
        HistoryMessage(row.seq, row.role, row.content, row.name, row.tool_call_id) for row in rows
    ]
    # Tokenizing a long session is CPU work: off the event loop.
    return await asyncio.to_thread(
        select_history,
        tokens,
        messages,
        budget,
        sinks=window.sinks,
        fresh_tail=window.fresh_tail,
    )


async def _recall(
    repository: SessionRepository,
    conversation_id: uuid.UUID,
    tokens: Tokens,
    found: History,
    built: ForInput,
    recall_max: int,
) -> History:
    """The evicted messages (not sinks, older than the first kept after them) that the input
    clearly refers to, those that fit whole with the context, and the history chosen again
    around them (`recall.recall_into`)."""
    choice, window = found.choice, found.window
    after_sinks = choice.kept[choice.sinks :]
    before = after_sinks[0].seq if after_sinks else found.in_session
    rows = await repository.recall(
        conversation_id,
        sorted(built.words),
        seqs=range(window.sinks, before),
        least=words_needed(len(built.words)),
        limit=recall_max,
    )
    if not rows:
        return found
    hits = [
        RecallHit(
            HistoryMessage(r.seq, r.role, r.content, r.name, r.tool_call_id), r.created_at, r.score
        )
        for r in rows
    ]
    # Counting the whole context again and choosing the history again is CPU work: a thread.
    recall, again = await asyncio.to_thread(
        recall_into, tokens, built.context, built.tokens, hits, choice, available(window)
    )
    budget = available(window) - recall.tokens
    return History(found.session_id, found.in_session, window, budget, again, recall)


def history_read(found: History, memory_budget: int, learnings_budget: int) -> dict[str, object]:
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
        "recalled": [
            {
                "seq": hit.message.seq,
                "role": hit.message.role,
                "tokens": line,
                "score": round(hit.score, 4),
            }
            for hit, line in zip(found.recall.hits, found.recall.line_tokens, strict=True)
        ],
        "recalled_tokens": found.recall.added,
        "tokens": choice.tokens,
        "window": window.model_dump()
        | {
            "available": available(window),
            "memory_budget": memory_budget,
            "learnings_budget": learnings_budget,
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
