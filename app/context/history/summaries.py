"""Summaries of evicted messages in a build: which of a session's span summaries stand, as
system messages after the sinks, for the messages evicted before the first one kept. Pure.

The rule: when messages between the sinks and the first kept one were evicted, `share` of the
history's budget is kept for summaries: the evictable prefix is first filled newest first in the
rest (`reserve`). The summaries read are the coarsest that lie wholly before the first kept
message (`SummaryRepository.covering`: finer ones near the kept messages, where the coarser do
not fit wholly); they are taken newest first while they fit what the messages left, and stop at
the first that does not, so what they stand for runs up to the kept messages without a gap. What
they do not use goes back to the evictable prefix, filled again newest first (`hand_back`); a
summary of messages it now keeps is left out. A reserved share, not leftovers: newest-first fill
alone leaves less than a message's tokens, so summaries would almost never be shown, while a
fifth of the budget buys hundreds of older messages in a few summaries.

A summary may also cover the sinks (blocks are aligned at seq 0): they are kept verbatim anyway.

The promise holds as in `choice.py`: the kept messages and the summaries, each counted as a
chat message (`message_tokens`), cost at most the budget.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

from app.context.history.choice import (
    HistoryChoice,
    HistoryMessage,
    chat_tokens,
    message_tokens,
    select_history,
)
from app.providers.tokenizer import Tokens

ROLE = "system"


@dataclass(frozen=True, slots=True)
class SpanSummary:
    """A stored summary of the messages `first_seq` to `last_seq`."""

    depth: int
    first_seq: int
    last_seq: int
    messages: int
    content: str
    quoted_seqs: tuple[int, ...] = ()


@dataclass(frozen=True)
class Placed:
    """The kept messages, the summaries before them (conversation order, with their chat
    tokens), and the chat tokens of all together."""

    choice: HistoryChoice
    summaries: tuple[SpanSummary, ...] = ()
    summary_tokens: tuple[int, ...] = ()

    @property
    def tokens(self) -> int:
        return self.choice.tokens + sum(self.summary_tokens)


def first_kept_after_sinks(choice: HistoryChoice, in_session: int) -> int:
    """seq of the first message kept after the sinks; the session's length when none is."""
    after = choice.kept[choice.sinks :]
    return after[0].seq if after else in_session


def wants_summaries(choice: HistoryChoice, in_session: int) -> bool:
    """Whether messages between the sinks and the first kept one were evicted while the sinks
    and the tail fit (when they do not, there is no room for anything more)."""
    return (
        choice.reason is None
        and bool(choice.kept)
        and first_kept_after_sinks(choice, in_session) > choice.sinks
    )


def reserve(tokens: Tokens, choice: HistoryChoice, budget: int, share: float) -> HistoryChoice:
    """The choice made again in the budget less summaries' share; never fewer than the sinks
    and the fresh tail (they fit: `wants_summaries`)."""
    costs = choice.kept_costs(tokens)
    floor = chat_tokens([*costs[: choice.sinks], *costs[len(costs) - choice.fresh_tail :]])
    room = max(budget - math.floor(share * budget), floor)
    return _again(tokens, choice, room)


def place(
    tokens: Tokens,
    choice: HistoryChoice,
    shrunk: HistoryChoice,
    found: Sequence[SpanSummary],
    budget: int,
) -> Placed:
    """The summaries `found` (newest first) that fit what `shrunk` left of `budget`, and the
    evictable prefix filled again from `choice` in what they leave."""
    room = budget - shrunk.tokens
    chosen: list[tuple[SpanSummary, int]] = []
    for summary in found:
        cost = message_tokens(tokens, as_message(summary))
        if cost > room:
            break
        chosen.append((summary, cost))
        room -= cost
    while True:  # a summary of messages the refill keeps goes, and hands its room back too
        placed = hand_back(tokens, choice, chosen, budget)
        if len(placed.summaries) == len(chosen):
            return placed
        standing = set(placed.summaries)
        chosen = [(summary, cost) for summary, cost in chosen if summary in standing]


def hand_back(
    tokens: Tokens,
    choice: HistoryChoice,
    chosen: Sequence[tuple[SpanSummary, int]],
    budget: int,
) -> Placed:
    """The evictable prefix filled again, newest first, in what the chosen summaries leave;
    the summaries of messages it keeps now are left out."""
    used = sum(cost for _, cost in chosen)
    again = _again(tokens, choice, budget - used)
    first_kept = first_kept_after_sinks(again, choice.kept[-1].seq + 1)
    standing = sorted(
        ((s, cost) for s, cost in chosen if s.last_seq < first_kept), key=lambda c: c[0].first_seq
    )
    return Placed(again, tuple(s for s, _ in standing), tuple(cost for _, cost in standing))


def _again(tokens: Tokens, choice: HistoryChoice, budget: int) -> HistoryChoice:
    return select_history(
        tokens,
        choice.kept,
        budget,
        sinks=choice.sinks,
        fresh_tail=choice.fresh_tail,
        costs=choice.kept_costs(tokens),
    )


def as_message(summary: SpanSummary) -> HistoryMessage:
    """A summary as the system message sent in its place."""
    return HistoryMessage(summary.first_seq, ROLE, summary.content)
