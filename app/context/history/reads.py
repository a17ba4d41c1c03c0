"""Which of a session's messages a build with a session reads (`conversation.py` selects
among them): the session's row comes with its sinks and its last messages in one statement
(`HistoryRepository.opening`), each with its stored token count and, as far back as the
history's budget can reach in those counts, its content; older messages are read a page at a
time, each twice the last, only while their stored counts say a selection may reach them, and
whole only as far as it can. A build of a long session usually reads one statement's worth,
not the thousand messages a budget of cheap ones could reach; reading from where these counts
say selects what reading everything would (`choice.read_from`).
"""

import math
import uuid
from collections.abc import Sequence

from app.context.history.choice import (
    budget_passed_at,
    least_cost,
    reach,
    read_from,
    read_from_totals,
)
from app.core.context_config import WindowSettings
from app.providers.tokenizer import BoundTokens, Tokens
from app.sessions.history_repository import (
    HistoryRepository,
    Opening,
    Reach,
    ReadMessage,
    SessionState,
)

# The first page a build reads with the session's row: the fresh tail and as many messages as
# the budget holds at this many tokens each (the next pages are twice the last).
PAGE_MESSAGE_TOKENS = 64


async def opening(
    reads: HistoryRepository,
    agent_id: uuid.UUID,
    name: str,
    tokens: Tokens,
    window: WindowSettings,
    budget: int,
    long: int,
) -> Opening | None:
    """The agent's session `name` with its sinks and its first page of last messages, whole
    as far back as `budget` reaches; None when it has none."""
    return await reads.opening(
        agent_id,
        name,
        first=window.sinks,
        fresh_tail=window.fresh_tail,
        last=_first_page(window, budget),
        reach=_whole_within(tokens, budget),
        long=long,
    )


def _first_page(window: WindowSettings, budget: int) -> int:
    """How many of a session's last messages a build reads with the session's row: the fresh
    tail and as many as the budget holds at PAGE_MESSAGE_TOKENS each."""
    return window.fresh_tail + max(budget, 0) // PAGE_MESSAGE_TOKENS + 1


def _whole_within(tokens: Tokens, budget: int, spent: int = 0) -> Reach:
    """The messages a read brings whole: as far back as the budget, in stored tokens, can
    reach (`spent` of them on newer messages)."""
    return Reach(math.ceil(max(budget, 0) / _stored_scale(tokens)), spent)


async def readable(
    reads: HistoryRepository,
    opened: Opening,
    tokens: Tokens,
    window: WindowSettings,
    budget: int,
    long: int,
) -> list[ReadMessage]:
    """The sinks and the messages from the oldest a selection can keep on, whole, in seq
    order: those the session's first read brought, and older ones read as the stored token
    counts say (`_read_from`). A build of a long session usually reads no more."""
    conversation, sinks, whole = opened.session, window.sinks, Reach()
    head = [m for m in opened.messages if m.seq < sinks]
    if conversation.had_efforts:  # its first read brought no message: the sinks now
        before = min(sinks, conversation.message_count)
        head = await reads.messages(conversation.id, 0, before=before, long=long, reach=whole)
    start = max(sinks, opened.tail_from)  # `tail`: every message from seq `start` on
    tail = [m for m in opened.messages if m.seq >= start]
    last_from, tail = await _read_from(reads, conversation, tail, tokens, window, budget, long)
    wanted, held = max(last_from, sinks), _whole_from(tail, start)
    if wanted < held:  # messages read without their content, or not read at all
        older = await reads.messages(conversation.id, wanted, before=held, long=long, reach=whole)
        tail = [*older, *(m for m in tail if m.seq >= held)]
    return [*head, *(m for m in tail if m.seq >= last_from)]


def _whole_from(tail: Sequence[ReadMessage], start: int) -> int:
    """The seq from which `tail` (every message from `start` on) holds each one whole."""
    held = tail[-1].seq + 1 if tail else start
    for message in reversed(tail):
        if message.content is None:
            break
        held = message.seq
    return held


async def _read_from(
    reads: HistoryRepository,
    conversation: SessionState,
    tail: list[ReadMessage],
    tokens: Tokens,
    window: WindowSettings,
    budget: int,
    long: int,
) -> tuple[int, list[ReadMessage]]:
    """How far back a selection can keep messages, as their stored token counts say, and the
    `tail` read further back to learn it: older messages read a page at a time (each twice the
    last), until one passes the budget or the `reach` of any selection is read. A session
    whose stored tokens all fit reads none."""
    count = conversation.message_count
    scale = _stored_scale(tokens)
    within = read_from_totals(
        count,
        conversation.token_count,
        budget,
        sinks=window.sinks,
        fresh_tail=window.fresh_tail,
        scale=scale,
    )
    if within is not None:  # the whole session fits: no cost needs reading
        return within, tail
    oldest = max(window.sinks, count - reach(budget, window.fresh_tail))
    start, page = (tail[0].seq if tail else count), _first_page(window, budget)
    while start > oldest and (
        not tail
        or budget_passed_at([m.cost() for m in tail], budget, long=long, scale=scale) is None
    ):
        page *= 2
        older = max(oldest, start - page)
        more = _whole_within(tokens, budget, sum(least_cost(m.cost(), long=long) for m in tail))
        tail = [
            *await reads.messages(conversation.id, older, before=start, long=long, reach=more),
            *tail,
        ]
        start = older
    stored = [m.cost() for m in tail]
    return read_from(stored, budget, fresh_tail=window.fresh_tail, long=long, scale=scale), tail


def _stored_scale(tokens: Tokens) -> float:
    """How a message's stored tokens (the default encoding's) bound its tokens in the build's:
    exactly in the same encoding; in another, read twice as far back as they say."""
    if isinstance(tokens, BoundTokens) and tokens.encoding == tokens.counter.default_encoding:
        return 1.0
    return 0.5
