"""What search_memory looks through, one source each: the agent's memories (the build's hybrid
search, ranking and relevance gate) and, with a session, its efforts (efforts' search, by words
or id) and its earlier messages (the build's recall statement, by words and by meaning). Each
returns a `Section`, best first."""

from sqlalchemy.ext.asyncio import AsyncSession

from app.agents.schemas import ContextWindow
from app.context.engine import ContextEngine
from app.context.history.recall import words_needed
from app.context.retrieval.search import SearchRepository
from app.context.selection.fill import Rules
from app.context.selection.gate import admissions
from app.context.selection.ranking import rank
from app.context.types import Admission, Candidate, Frame, Neighbours, Scored
from app.efforts.repository import EffortRepository
from app.efforts.service import Where, search_efforts
from app.sessions.repository import FoundMessage, RecallQuery, SessionRepository
from app.tools.effort_tools import effort_line
from app.tools.repository import ToolRepository
from app.tools.search_query import SearchQuery
from app.tools.types import Item, Reference, Section, ToolCall

# Every kind weighs the same: a search asks about no kind in particular.
_ANY_FRAME = Frame("search", "", (), {}, default_budget=0)


def memory_line(candidate: Candidate) -> str:
    """A found memory's entry: its id (for expand_memory), kind, date and summary (or the
    passages of its full text around the query's words, when the summary holds none)."""
    return (
        f"- [memory {candidate.memory_id}] {candidate.kind}, "
        f"{candidate.occurred_at:%Y-%m-%d}: {candidate.excerpt or candidate.summary}"
    )


async def found_memories(
    session: AsyncSession, engine: ContextEngine, query: SearchQuery
) -> list[tuple[Scored, Admission]]:
    """The agent's memories the query finds by meaning and words, ranked as a build ranks them,
    those the relevance gate lets in (and why), best first, at most `limit`."""
    settings = engine.settings
    search = SearchRepository(session, engine.corpus)
    candidates = await search.finish(
        query.spec, query.words, query.vector, Neighbours(), query.rescore
    )
    ranked = rank(
        candidates, _ANY_FRAME, query.now, settings.weights, settings.half_life_days,
        query.period, query.words.reference,
    )  # fmt: skip
    gate = Rules.of(settings).gate
    admitted = [(s, why) for s, why in zip(ranked, admissions(ranked, gate), strict=True) if why]
    return admitted[: query.limit]


async def memories(call: ToolCall, query: SearchQuery) -> Section:
    """The memories the query finds (`found_memories`), a line each."""
    best = await found_memories(call.session, call.engine, query)
    items = tuple(
        Item(memory_line(s.candidate), Reference("memory", s.candidate.memory_id)) for s, _ in best
    )
    return Section("Memories:", items, f'No memory matches "{query.text}".')


def evictable_seqs(call: ToolCall, in_session: int) -> range:
    """The seqs of a session's messages a build does not always keep: after its first `sinks`
    and before its last `fresh_tail` (the agent's window defaults, else the settings')."""
    stored = ContextWindow.model_validate(call.agent.default_window or {})
    window = call.engine.settings.window
    sinks = window.sinks if stored.sinks is None else stored.sinks
    fresh_tail = window.fresh_tail if stored.fresh_tail is None else stored.fresh_tail
    return range(sinks, max(in_session - fresh_tail, sinks))


def message_line(row: FoundMessage) -> str:
    return f"- [message seq {row.seq}] {row.role}, {row.created_at:%Y-%m-%d}: {row.content}"


async def messages(call: ToolCall, query: SearchQuery) -> Section | None:
    """With a session: its messages a build does not always keep (neither its first `sinks`
    nor its last `fresh_tail`) that hold the query's words or mean what it means, best first
    by reciprocal rank fusion, at most `limit`. None without a session."""
    if query.session_id is None:
        return None
    title = f"Earlier messages of session {query.session_id}:"
    repository = SessionRepository(call.session)
    conversation = await repository.get(call.agent.id, query.session_id)
    if conversation is None:
        return Section(title, (), f"Session {query.session_id} has no messages.")
    empty = f'No earlier message of session {query.session_id} matches "{query.text}".'
    if not query.terms and query.vector is None:
        return Section(title, (), empty)
    seqs = evictable_seqs(call, conversation.message_count)
    recall = RecallQuery(
        sorted(query.terms),
        words_needed(len(query.terms)),
        query.vector,
        call.engine.settings.recall_min_similarity,
    )
    rows = await repository.recall(conversation.id, recall, seqs=seqs, limit=query.limit)
    ids = await ToolRepository(call.session).message_ids(conversation.id, [r.seq for r in rows])
    items = tuple(Item(message_line(row), Reference("message", ids[row.seq])) for row in rows)
    return Section(title, items, empty)


async def efforts(call: ToolCall, query: SearchQuery) -> Section | None:
    """With a session that has efforts: those the query finds by the words of their title,
    goal and summary, or by their id (`e_4`), evicted ones too, best first, at most `limit`.
    None without a session, or with one that has no effort."""
    if query.session_id is None:
        return None
    conversation = await SessionRepository(call.session).get(call.agent.id, query.session_id)
    if conversation is None:
        return None
    numbers = {
        e.effort_id: e.id for e in await EffortRepository(call.session).for_session(conversation.id)
    }
    if not numbers:
        return None
    where = Where(call.agent.name, query.session_id)
    settings = call.engine.settings.efforts
    found = await search_efforts(
        call.session, call.tenant, where, query.text, query.limit, settings, vector=query.vector
    )
    items = tuple(
        Item(effort_line(f.effort), Reference("effort", numbers[f.effort.effort_id]))
        for f in found.items
    )
    title = f"Efforts of session {query.session_id}:"
    return Section(title, items, f'No effort of session {query.session_id} matches "{query.text}".')
