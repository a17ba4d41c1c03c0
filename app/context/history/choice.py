"""The history step: which of a session's messages go with the context, counted as the target
model counts a chat request. Pure.

Seed 001's rule (Missy's ContextManager): the last `fresh_tail` messages are kept, and the first
`sinks` (attention sinks, usually the instructions); the evictable prefix between them is filled
newest first until the history's budget is used, and once a message does not fit, it and every
older evictable message are evicted. Under pressure (issue 17, seed 003), a long assistant or
tool message that does not fit whole is shown by its own summary (`short`) when that fits, and
the fill goes on; user and system messages are never rewritten, only kept or evicted. When
the sinks and the fresh tail alone do not fit, the tail's oldest messages go first (never the
last message), then the sinks, newest first; when not even the last message fits, none is kept.

The promise: `chat_tokens` of the kept messages is at most the budget, for any session.
"""

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from app.providers.tokenizer import Tokens
from app.sessions.history_repository import StoredCost

# Per message: <|start|>{role}<|message|>{content}<|end|> around the role's and content's own
# tokens; per request: the reply's priming, <|start|>assistant<|message|>.
TOKENS_PER_MESSAGE = 3
TOKENS_PER_NAME = 1
REPLY_PRIMING = 3
# The least a message can cost: its overhead and a role of one token (the four roles are one
# token each in both encodings; content may cost nothing more).
MIN_MESSAGE_TOKENS = TOKENS_PER_MESSAGE + 1


@dataclass(frozen=True, slots=True)
class HistoryMessage:
    """A stored message of a session, in the OpenAI chat format, at its place `seq`."""

    seq: int
    role: str
    content: str
    name: str | None = None
    tool_call_id: str | None = None


def message_tokens(tokens: Tokens, message: HistoryMessage) -> int:
    """What one message adds to a chat request: OpenAI's rule for gpt-4o-family models
    (cookbook "How to count tokens with tiktoken", `num_tokens_from_messages`): 3 tokens per
    message, plus the tokens of its role and content, plus those of `name` and 1 more when it
    has one. `tool_call_id` is counted by its tokens too (the cookbook leaves it out; counting
    it can only overestimate)."""
    count = TOKENS_PER_MESSAGE + tokens.count(message.role) + tokens.count(message.content)
    if message.name is not None:
        count += tokens.count(message.name) + TOKENS_PER_NAME
    if message.tool_call_id is not None:
        count += tokens.count(message.tool_call_id)
    return count


def chat_tokens(costs: Sequence[int]) -> int:
    """A chat request's tokens from its messages' `message_tokens`: their sum and the reply's
    priming (3), once. No message, no request: 0."""
    return sum(costs) + REPLY_PRIMING if costs else 0


@dataclass(frozen=True)
class HistoryChoice:
    """The messages kept, in conversation order, how many of them are sinks and fresh tail,
    their tokens as a chat request, and why sinks or tail had to go, if they did."""

    kept: tuple[HistoryMessage, ...]
    sinks: int
    fresh_tail: int
    tokens: int
    reason: str | None = None
    # Each kept message's `message_tokens`, when the choice knows them: a choice made again
    # from its kept messages counts none of them again.
    costs: tuple[int, ...] = ()

    def kept_costs(self, tokens: Tokens) -> list[int]:
        """Each kept message's `message_tokens`, counted only when the choice does not hold
        them."""
        if len(self.costs) == len(self.kept):
            return list(self.costs)
        return [message_tokens(tokens, message) for message in self.kept]


def reach(budget: int, fresh_tail: int) -> int:
    """How many of a session's last messages a selection can use with its sinks: the fresh
    tail, and more evictable messages than can fit, since each costs at least
    MIN_MESSAGE_TOKENS. A session's messages beyond them are evicted whatever they hold."""
    return fresh_tail + budget // MIN_MESSAGE_TOKENS + 1


def read_from(
    stored: Sequence[StoredCost], budget: int, *, fresh_tail: int, long: int, scale: float
) -> int:
    """The oldest seq a selection within `budget` can keep after its sinks, from `stored` (a
    session's last messages, in seq order, at least `reach` of them, or enough that
    `budget_passed_at` finds a seq in them): walking back from the newest, each message's least
    cost is summed, and the one that takes the sum past the budget is the oldest to read
    (Missy's rule stops there). The fresh tail is read whatever it costs. Reading from here
    selects what reading everything would."""
    if not stored:
        return 0
    passed = budget_passed_at(stored, budget, long=long, scale=scale)
    first = stored[0].seq if passed is None else passed
    return min(first, stored[-1].seq + 1 - fresh_tail)


def read_from_totals(
    count: int, total_tokens: int, budget: int, *, sinks: int, fresh_tail: int, scale: float
) -> int | None:
    """`read_from` from a session's totals alone (`count` messages, `total_tokens` stored), when
    they tell it: if every message's least cost together stays within `budget`, no walk back
    passes it, and a selection reads everything after its sinks that is within its `reach`, as
    the walk over the stored costs would find. None when the totals cannot tell."""
    if REPLY_PRIMING + count * MIN_MESSAGE_TOKENS + total_tokens * scale > budget:
        return None
    oldest = max(sinks, count - reach(budget, fresh_tail))
    return min(oldest, count - fresh_tail) if count > oldest else 0


def budget_passed_at(
    stored: Sequence[StoredCost], budget: int, *, long: int, scale: float
) -> int | None:
    """Walking back from the newest of `stored`, the seq of the message whose least cost takes
    the sum past `budget`, or None when all of them fit (older messages may then be kept too)."""
    total = REPLY_PRIMING
    for cost in reversed(stored):
        total += least_cost(cost, long=long, scale=scale)
        if total > budget:
            return cost.seq
    return None


def least_cost(cost: StoredCost, *, long: int, scale: float = 1.0) -> int:
    """The least a message costs: the overhead, a role of one token, and its content's stored
    tokens times `scale` (1 when the build counts in the stored encoding: exact; less for
    another); a long assistant or tool message, which may come as its own summary, costs the
    least any message does."""
    shortened = long > 0 and cost.role in ("assistant", "tool") and cost.tokens > long
    return MIN_MESSAGE_TOKENS + (0 if shortened else math.floor(cost.tokens * scale))


def select_history(
    tokens: Tokens,
    messages: Sequence[HistoryMessage],
    budget: int,
    *,
    sinks: int,
    fresh_tail: int,
    short: Mapping[int, str] | None = None,
    costs: Sequence[int] | None = None,
) -> HistoryChoice:
    """The messages to send, from `messages` in seq order, within `budget` chat tokens; an
    evictable assistant or tool message that does not fit whole may come as its `short` form
    (its summary, by seq)."""
    if costs is None:
        costs = [message_tokens(tokens, message) for message in messages]
    costs = list(costs)
    count = len(messages)
    sink_count = min(sinks, count)
    tail_start = max(count - fresh_tail, sink_count)
    protected = [*range(sink_count), *range(tail_start, count)]
    if chat_tokens([costs[i] for i in protected]) > budget:
        return _under_pressure(messages, costs, budget, sink_count, tail_start)
    # The reply's priming is paid once, here, whether the first message kept is protected or not.
    room = budget - REPLY_PRIMING - sum(costs[i] for i in protected)
    first_kept = tail_start
    shown: dict[int, HistoryMessage] = {}  # messages shown by their summaries
    for index in range(tail_start - 1, sink_count - 1, -1):  # the evictable prefix, newest first
        if costs[index] > room:
            shorter = _short_form(tokens, messages[index], short or {})
            if shorter is None or shorter[1] > room:
                break  # Missy's rule: this one and every older evictable message are evicted
            shown[index], costs[index] = shorter
        room -= costs[index]
        first_kept = index
    kept = [*range(sink_count), *range(first_kept, count)]
    return HistoryChoice(
        kept=tuple(shown.get(i, messages[i]) for i in kept),
        sinks=sink_count,
        fresh_tail=count - tail_start,
        tokens=chat_tokens([costs[i] for i in kept]),
        costs=tuple(costs[i] for i in kept),
    )


def _short_form(
    tokens: Tokens, message: HistoryMessage, short: Mapping[int, str]
) -> tuple[HistoryMessage, int] | None:
    """The message shown by its own summary, and what it costs; None for a user's or system
    message (never rewritten) or one without a summary."""
    if message.role not in ("assistant", "tool") or message.seq not in short:
        return None
    shorter = replace(message, content=short[message.seq])
    return shorter, message_tokens(tokens, shorter)


def _under_pressure(
    messages: Sequence[HistoryMessage],
    costs: Sequence[int],
    budget: int,
    sink_count: int,
    tail_start: int,
) -> HistoryChoice:
    """Sinks and tail do not fit together: no evictable message is kept; the tail's oldest go
    first, never the last message, then the sinks from the newest; then the last message."""
    count = len(messages)
    kept = [*range(sink_count), *range(tail_start, count)]
    # Which kept message goes next, first to last; the last message (a sink too, in a session
    # shorter than the sinks and tail) always last.
    candidates = (*range(tail_start, count), *range(sink_count - 1, -1, -1))
    order = [i for i in candidates if i < count - 1]
    order += [count - 1] if count - 1 in kept else []
    evicted: set[int] = set()
    left = sum(costs[i] for i in kept)
    for index in order:
        if left + REPLY_PRIMING <= budget:
            break
        evicted.add(index)
        left -= costs[index]
    kept = [i for i in kept if i not in evicted]
    sinks_kept = sum(1 for i in kept if i < sink_count)
    tail_kept = len(kept) - sinks_kept
    evicted_tail = count - tail_start - tail_kept
    evicted_sinks = sink_count - sinks_kept
    if not kept:
        reason = f"not even the last message fits the history's {budget} tokens"
    else:
        reason = (
            f"the sinks and the fresh tail do not fit the history's {budget} tokens: "
            f"{evicted_tail} of the tail and {evicted_sinks} of the sinks were evicted"
        )
    return HistoryChoice(
        kept=tuple(messages[i] for i in kept),
        sinks=sinks_kept,
        fresh_tail=tail_kept,
        tokens=chat_tokens([costs[i] for i in kept]),
        reason=reason,
        costs=tuple(costs[i] for i in kept),
    )
