"""The recall step of a build with a session: evicted messages the input clearly refers to come
back into the context under their own header. Pure.

They are found (`SessionRepository.recall`, one statement), among the evicted messages that are
not sinks, by their words: those holding at least `CLEAR_REFERENCE_WORDS` distinct words of the
input (as PostgreSQL stems them, stop words dropped), or its only word when it has one (a single
shared word is too weak: most turns of a conversation share a word or two); and by their
meaning: those whose vector (computed in the background, `app.sessions.vectors`) is at least
`CE_CONTEXT__RECALL_MIN_SIMILARITY` similar to the input's. Ranked by reciprocal rank fusion of
the two orders (ts_rank, similarity): 1/(60 + rank) for each order a message is in, summed; a
message found both ways comes first. A build without the input's vector (the embedder down or
late) finds by words alone, and so does a message not embedded yet.

The similarity bar is stricter than a memory's (0.2 and half the best, `selection/gate.py`): a
recalled message costs history room. Its default, 0.55, is measured with the local MiniLM on the
LoCoMo development conversations (996 questions, each against every turn's text): the best
evidence turn of a question reaches 0.55 for 7% of them, the most similar turn of the four
conversations that never spoke of it for 2% (at 0.5: 13% against 8%; at 0.45: 21% against 21%,
chance). A paraphrase that shares no word with the message scores 0.55-0.6 there, an unrelated
one under 0.15. At 0.55 a message recalled by meaning is rarely one about something never said;
the words find the rest.

A recalled message is quoted whole or not at all, best first, each only if the whole context
with it and the history's sinks and fresh tail still fit available; the history is then chosen
again with what is left, so a recalled message takes the place of the oldest evictable messages
kept (it is worth more to this input than they are). The promise stays whole: the context's
tokens, recounted with the target model's tokenizer, plus `history.tokens` ≤ available.
"""

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal

from app.context.history.choice import (
    HistoryChoice,
    HistoryMessage,
    chat_tokens,
    select_history,
)
from app.context.text.render import SEPARATOR, append_section
from app.providers.tokenizer import Tokens

Found = Literal["words", "meaning", "both"]

RECALL_HEADER = "## Earlier in this conversation"
# An evicted message clearly refers to what the input asks when it holds this many distinct
# words of the input's (all of them when the input has fewer).
CLEAR_REFERENCE_WORDS = 2


def words_needed(input_words: int) -> int:
    """How many of the input's words a message must hold to be recalled."""
    return min(CLEAR_REFERENCE_WORDS, input_words)


@dataclass(frozen=True, slots=True)
class RecallHit:
    """An evicted message the search found, when it was said, its fused rank score, how it
    was found and its similarity to the input (None when either has no vector)."""

    message: HistoryMessage
    created_at: datetime
    score: float
    by: Found = "words"
    similarity: float | None = None


@dataclass(frozen=True)
class Recall:
    """The context's whole text with the recalled section, its tokens, the recalled messages
    in conversation order and the tokens of each one's line; `added`: the tokens the section
    added to the memory context's."""

    text: str
    tokens: int
    hits: tuple[RecallHit, ...] = ()
    line_tokens: tuple[int, ...] = ()
    added: int = 0


def recall_line(hit: RecallHit) -> str:
    message = hit.message
    return f"- [seq {message.seq}, {message.role}, {hit.created_at:%Y-%m-%d}] {message.content}"


def with_recalled(context: str, hits: Sequence[RecallHit]) -> str:
    """The context followed by the recalled section, its messages in conversation order."""
    if not hits:
        return context
    lines = [recall_line(hit) for hit in sorted(hits, key=lambda hit: hit.message.seq)]
    section = "\n".join([RECALL_HEADER, *lines])
    return SEPARATOR.join(part for part in (context, section) if part)


def protected_tokens(tokens: Tokens, choice: HistoryChoice) -> int:
    """The chat tokens of the sinks and fresh tail a selection kept: what recall leaves alone."""
    costs = choice.kept_costs(tokens)
    return chat_tokens([*costs[: choice.sinks], *costs[len(costs) - choice.fresh_tail :]])


def fit_recalled(
    tokens: Tokens, context: str, context_tokens: int, hits: Sequence[RecallHit], room: int
) -> Recall:
    """The hits (best first) that fit, each whole, with the context in `room` tokens.

    The context with the section's header after it is counted once (tokens do not add up
    across the join); each step then counts the section alone, a few lines, and puts the
    header's own tokens in its place. The text with the hits chosen is counted exactly at the
    end, and while it passes `room` the last one chosen goes. Both counts of the context with
    something after it recount only its last line (`render.append_section`: exact, whatever
    the context's length)."""
    header = tokens.count(RECALL_HEADER)
    _text, opened = append_section(tokens, context, context_tokens, RECALL_HEADER)
    chosen: list[RecallHit] = []
    for hit in hits:
        section = with_recalled("", [*chosen, hit])
        if opened - header + tokens.count(section) <= room:
            chosen.append(hit)
    text, count = context, context_tokens
    while chosen:
        trial, trial_tokens = append_section(
            tokens, context, context_tokens, with_recalled("", chosen)
        )
        if trial_tokens <= room:
            text, count = trial, trial_tokens
            break
        chosen.pop()
    chosen.sort(key=lambda hit: hit.message.seq)
    return Recall(
        text,
        count,
        tuple(chosen),
        tuple(tokens.count(recall_line(hit)) + 1 for hit in chosen),  # its newline too
        count - context_tokens,
    )


def recall_into(
    tokens: Tokens,
    context: str,
    context_tokens: int,
    hits: Sequence[RecallHit],
    choice: HistoryChoice,
    available: int,
) -> tuple[Recall, HistoryChoice]:
    """The hits that fit whole with the context and the choice's sinks and fresh tail in
    `available`, and the history chosen again in what they leave: they take the place of the
    oldest evictable messages kept."""
    room = available - protected_tokens(tokens, choice)
    recall = fit_recalled(tokens, context, context_tokens, hits, room)
    if not recall.hits:
        return recall, choice
    # The sinks and tail still fit (`room` kept them), so the second choice evicts none of
    # them: why any went, if they did, is the first choice's.
    again = select_history(
        tokens,
        choice.kept,
        available - recall.tokens,
        sinks=choice.sinks,
        fresh_tail=choice.fresh_tail,
        costs=choice.kept_costs(tokens),
    )
    return recall, replace(again, reason=choice.reason)
