"""Token pressure on a build with a session, for refresh: does the context it built still leave
the session's real history its room?

The rule: a build promised that its context and the messages it returned fit `available`. The
client then sends that context, those messages and every message appended since. When they no
longer fit together, that is token pressure: the history, chosen again now around the same
context, would have to evict messages the build kept (or the sinks and fresh tail themselves),
so refresh rebuilds, and the rebuild prunes the history anew. Until a message is appended
nothing changes, and no message that still fits is a reason either:

    context tokens + chat tokens of (the messages sent and those appended since) > available

Each appended message is counted as the build's target model counts a chat request
(`history.message_tokens`), the reply's priming once. `history_pressure` is the rule, pure;
`session_pressure` reads what it needs.
"""

import asyncio
from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from app.agents.models import Agent
from app.context.history.choice import (
    MIN_MESSAGE_TOKENS,
    REPLY_PRIMING,
    HistoryMessage,
    message_tokens,
)
from app.context.history.schemas import HistoryRead
from app.providers.tokenizer import ENCODINGS, EncodingName, Tokens
from app.sessions.repository import SessionRepository


def history_pressure(
    available: int, context_tokens: int, sent_tokens: int, appended: Sequence[int]
) -> bool:
    """Whether the build's context (`context_tokens`), the messages it sent (`sent_tokens`, as
    a chat request) and those appended since (each one's `message_tokens`) exceed available."""
    if not appended:
        return False
    priming = 0 if sent_tokens else REPLY_PRIMING  # paid once, with the first message
    return context_tokens + sent_tokens + priming + sum(appended) > available


def encoding_of(name: str, default: EncodingName) -> EncodingName:
    """A stored build's encoding by its name (`totals.encoding`)."""
    return next((encoding for encoding in ENCODINGS if encoding == name), default)


def _room(history: HistoryRead) -> tuple[int, int]:
    """The build's context tokens, and the most appended messages that could still fit
    (each costs at least MIN_MESSAGE_TOKENS): reading one more than that settles the rule."""
    window = history.window
    context_tokens = window.available - window.history_budget
    room = window.available - context_tokens - history.tokens
    return context_tokens, max(room, 0) // MIN_MESSAGE_TOKENS + 1


async def session_pressure(
    session: AsyncSession, tokens: Tokens, agent: Agent, history: HistoryRead
) -> bool:
    """The rule for a stored build's history against its session as it is now: at most the
    appended messages that can matter are read, and counted on a thread."""
    repository = SessionRepository(session)
    conversation = await repository.get(agent.id, history.session_id)
    if conversation is None or conversation.message_count <= history.messages_in_session:
        return False
    context_tokens, limit = _room(history)
    rows = await repository.page(
        conversation.id, after=history.messages_in_session - 1, limit=limit
    )
    messages = [HistoryMessage(r.seq, r.role, r.content, r.name, r.tool_call_id) for r in rows]
    costs = await asyncio.to_thread(lambda: [message_tokens(tokens, m) for m in messages])
    return history_pressure(history.window.available, context_tokens, history.tokens, costs)
