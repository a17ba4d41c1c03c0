"""Which summaries a session needs: fixed, aligned places, so every worker plans the same ones.
Pure.

Depth 1 covers blocks of `span` messages aligned at seq 0 ([0, span), [span, 2 span), ...); a
block is summarized once it is complete and older than the default fresh tail (its messages can
leave the kept window). Depth d + 1 covers `fanout` consecutive depth-d summaries, aligned the
same way, once all of them exist. With span 20 and fanout 5, a session of 10,000 messages has at
most 500 + 100 + 20 + 4 = 624 summaries, and any stretch of it before the kept messages is covered
by at most fanout - 1 = 4 summaries per depth (`SummaryRepository.covering`), 16 in all: what a
build reads does not grow with the session.
"""

from collections.abc import Collection, Iterator
from dataclasses import dataclass


@dataclass(frozen=True, slots=True, order=True)
class Place:
    """A summary's place: its depth and the seqs it covers, `first_seq` to `last_seq`."""

    depth: int
    first_seq: int
    last_seq: int


def width(depth: int, span: int, fanout: int) -> int:
    """Messages a summary of `depth` covers."""
    return int(span * fanout ** (depth - 1))


def complete_blocks(message_count: int, fresh_tail: int, span: int) -> int:
    """Depth-1 blocks a session of `message_count` messages can have summaries of."""
    return max(message_count - fresh_tail, 0) // span


def due(
    message_count: int,
    fresh_tail: int,
    span: int,
    fanout: int,
    existing: Collection[tuple[int, int]],
) -> Iterator[Place]:
    """The summaries to make next, in an order that makes each after what it needs: the
    missing depth-1 blocks, oldest first, then a depth d + 1 once its `fanout` parts exist
    (or are made before it). `existing` holds (depth, first_seq) of the summaries made."""
    made = set(existing)
    depth, count = 1, complete_blocks(message_count, fresh_tail, span)
    while count:
        size = width(depth, span, fanout)
        for index in range(count):
            first = index * size
            if (depth, first) in made:
                continue
            parts = [(depth - 1, first + i * size // fanout) for i in range(fanout)]
            if depth == 1 or all(part in made for part in parts):
                made.add((depth, first))
                yield Place(depth, first, first + size - 1)
        depth, count = depth + 1, count // fanout


def completes_a_block(before: int, after: int, fresh_tail: int, span: int) -> bool:
    """Whether an append from `before` to `after` messages made a new block summarizable."""
    return complete_blocks(after, fresh_tail, span) > complete_blocks(before, fresh_tail, span)
