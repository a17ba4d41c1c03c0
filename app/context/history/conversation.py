"""The history step of a build with a session: the session's messages read (only those a
selection can use, `reads.py`), selected on a thread (`choice.py`), the evicted messages the
input clearly refers to recalled into the context (`recall.py`), and accounted for the
manifest.

Then the summaries of evicted spans go before the kept messages, inside the same budget
(`summaries.py`): made in the background, only read here, in one statement.
"""

import asyncio
import uuid
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace

from sqlalchemy.ext.asyncio import AsyncSession

from app.context.history.choice import (
    HistoryChoice,
    HistoryMessage,
    select_history,
)
from app.context.history.efforts import working_history
from app.context.history.reads import opening, readable
from app.context.history.recall import Found, Recall, RecallHit, recall_into, words_needed
from app.context.history.summaries import (
    SpanSummary,
    first_kept_after_sinks,
    place,
    reserve,
    wants_summaries,
)
from app.context.history.window import available
from app.context.types import Vector
from app.core.clock import Clock
from app.core.context_config import ContextSettings, WindowSettings
from app.providers.tokenizer import Tokens
from app.sessions.history_repository import (
    HistoryRepository,
    ReadMessage,
)
from app.sessions.repository import FoundMessage, RecallQuery, SessionRepository
from app.sessions.summary_repository import SummaryRepository

_NONE = HistoryChoice(kept=(), sinks=0, fresh_tail=0, tokens=0)


@dataclass(frozen=True)
class History:
    """A session's history as a build chose it, within `budget` chat tokens: the messages
    kept, the summaries placed before them (with their chat tokens), and the context's whole
    text with the messages it recalled."""

    session_id: str
    in_session: int
    window: WindowSettings
    budget: int
    choice: HistoryChoice
    recall: Recall
    summaries: tuple[SpanSummary, ...] = ()
    summary_tokens: tuple[int, ...] = ()
    # The long messages' own summaries the selection could use, by seq.
    short: Mapping[int, str] = field(default_factory=dict)
    # With efforts: how each was shown (`app.context.history.efforts`); the manifest's `efforts`.
    efforts: Mapping[str, object] | None = None

    @property
    def tokens(self) -> int:
        """Of `messages` as a chat request: the kept messages and the summaries."""
        return self.choice.tokens + sum(self.summary_tokens)


@dataclass(frozen=True)
class ForInput:
    """What the history is chosen around: the memory context (its text and tokens), the
    input's words as PostgreSQL stems them and its vector (None: the embedder did not answer)."""

    context: str
    tokens: int
    words: Collection[str]
    vector: Vector | None = None


async def history(
    session: AsyncSession,
    tokens: Tokens,
    agent_id: uuid.UUID,
    session_id: str,
    window: WindowSettings,
    built: ForInput,
    *,
    settings: ContextSettings,
    clock: Clock,
) -> History:
    """The messages of the agent's session that fit what the context left of available, at
    most `settings.recall_max` evicted ones the input clearly refers to, and the summaries of
    evicted spans; none for a session that has no message yet (its first message creates it:
    building before is no error)."""
    budget = available(window) - built.tokens
    long = settings.summaries.long_message_tokens
    reads = HistoryRepository(session)
    opened = await opening(reads, agent_id, session_id, tokens, window, budget, long)
    unchanged = Recall(built.context, built.tokens)
    if opened is None:
        return History(session_id, 0, window, budget, _NONE, unchanged)
    conversation = opened.session
    context, room = (built.context, built.tokens), available(window)
    worked = None
    if conversation.had_efforts:  # a session with efforts: its working memory
        worked = await working_history(
            session, tokens, conversation, window, context, room, settings.efforts
        )
    if worked is not None:
        clock.lap("efforts")
        return History(
            session_id, conversation.message_count, window, room - worked.tokens,
            worked.choice, Recall(worked.text, worked.tokens), efforts=worked.read,
        )  # fmt: skip
    rows = await readable(reads, opened, tokens, window, budget, long)
    choice, short = await _select(rows, tokens, window, budget)
    clock.lap("history")
    count = conversation.message_count
    found = History(session_id, count, window, budget, choice, unchanged, short=short)
    searchable = built.words or built.vector is not None
    if settings.recall_max and searchable and found.in_session > len(choice.kept):
        repository = SessionRepository(session)
        found = await _recall(repository, conversation.id, tokens, found, built, settings)
        clock.lap("recall")
    if wants_summaries(found.choice, found.in_session):
        found = await _summaries(
            SummaryRepository(session), conversation.id, tokens, found, settings
        )
        clock.lap("summaries")
    return found


async def _summaries(
    repository: SummaryRepository,
    conversation_id: uuid.UUID,
    tokens: Tokens,
    found: History,
    settings: ContextSettings,
) -> History:
    """The coarsest summaries of the evicted messages before the first one kept, newest first
    while they fit, in the summaries' share of the budget and what the messages leave."""
    share = settings.summaries.share
    # On the event loop: the choice holds its messages' counts; only the summaries, each of at
    # most `settings.summaries.max_tokens`, are counted.
    shrunk = reserve(tokens, found.choice, found.budget, share)
    before = first_kept_after_sinks(shrunk, found.in_session)
    rows = await repository.covering(conversation_id, before)
    if not rows:
        return found
    summaries = [
        SpanSummary(r.depth, r.first_seq, r.last_seq, r.messages, r.content, tuple(r.quoted_seqs))
        for r in rows
    ]
    placed = place(tokens, found.choice, shrunk, summaries, found.budget)
    return replace(
        found,
        choice=placed.choice,
        summaries=placed.summaries,
        summary_tokens=placed.summary_tokens,
    )


async def _select(
    rows: Sequence[ReadMessage], tokens: Tokens, window: WindowSettings, budget: int
) -> tuple[HistoryChoice, dict[int, str]]:
    """The selection from the messages read, and the summaries of their own of the long
    assistant and tool messages among them (read with them)."""
    messages = [_message(row) for row in rows]
    short = {row.seq: row.short for row in rows if row.short is not None}
    # Tokenizing a long session is CPU work: off the event loop.
    choice = await asyncio.to_thread(
        select_history,
        tokens,
        messages,
        budget,
        sinks=window.sinks,
        fresh_tail=window.fresh_tail,
        short=short,
    )
    return choice, short


def _message(row: ReadMessage) -> HistoryMessage:
    assert row.content is not None, "a message selected is read whole (`_readable`)"
    return HistoryMessage(row.seq, row.role, row.content, row.name, row.tool_call_id)


async def _recall(
    repository: SessionRepository,
    conversation_id: uuid.UUID,
    tokens: Tokens,
    found: History,
    built: ForInput,
    settings: ContextSettings,
) -> History:
    """The evicted messages (not sinks, older than the first kept after them) that the input
    clearly refers to, by words or meaning, those that fit whole with the context, and the
    history chosen again around them (`recall.recall_into`)."""
    choice, window = found.choice, found.window
    after_sinks = choice.kept[choice.sinks :]
    before = after_sinks[0].seq if after_sinks else found.in_session
    query = RecallQuery(
        sorted(built.words),
        words_needed(len(built.words)),
        built.vector,
        settings.recall_min_similarity,
    )
    rows = await repository.recall(
        conversation_id, query, seqs=range(window.sinks, before), limit=settings.recall_max
    )
    if not rows:
        return found
    hits = [_hit(row) for row in rows]
    # Counting the whole context again and choosing the history again is CPU work: a thread.
    recall, again = await asyncio.to_thread(
        recall_into, tokens, built.context, built.tokens, hits, choice, available(window)
    )
    budget = available(window) - recall.tokens
    return History(found.session_id, found.in_session, window, budget, again, recall)


def _hit(row: FoundMessage) -> RecallHit:
    by: Found = (
        "both" if row.by_words and row.by_meaning else "words" if row.by_words else "meaning"
    )
    message = HistoryMessage(row.seq, row.role, row.content, row.name, row.tool_call_id)
    return RecallHit(message, row.created_at, row.score, by, row.similarity)
