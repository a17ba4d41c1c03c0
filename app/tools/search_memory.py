"""The search_memory tool: what the agent knows about a topic, by meaning and by words, from
every source in `SOURCES` (memories; with a session, its efforts and earlier messages)."""

from collections.abc import Awaitable, Callable
from typing import Annotated

from pydantic import AfterValidator, Field

from app.context.retrieval.search import SearchRepository
from app.context.types import FLEXIBLE_KINDS, FlexibleKind
from app.core.fields import NoNul, RequestBody, WholeNumber
from app.sessions.schemas import SESSION_NAME_PATTERN
from app.tools import search_sources
from app.tools.search_query import SearchQuery, understand
from app.tools.types import Section, ToolCall, ToolOutput

DESCRIPTION = (
    "Search the agent's long-term memory (decisions, facts, procedures, episodes) by meaning "
    "and by words; with session_id, also that conversation's efforts (finished pieces of work, "
    "by topic, those no longer in the context too) and its earlier messages that are no "
    "longer in the context. Use it when the user asks about something not shown in your "
    "context. Returns the best matches, each with its id; expand_memory(memory_id) gives a "
    "memory's full text, expand_effort(session_id, effort_id) an effort's messages."
)
HINT = "expand_memory(memory_id) returns a memory's full text."
EFFORT_HINT = "expand_effort(session_id, effort_id) loads an effort's messages into your context."
# Said when the query has no embedding (the provider down or late): found by words alone.
WORDS_ONLY = "(Matched by words only: search by meaning is unavailable right now.)"


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("the query must not be blank")
    return value


class SearchMemoryArguments(RequestBody):
    """search_memory's arguments."""

    query: Annotated[
        str, Field(min_length=1, max_length=2000), NoNul, AfterValidator(_not_blank)
    ] = Field(description="What to look for: a topic, a question, names or keywords.")
    kinds: list[FlexibleKind] | None = Field(
        default=None,
        min_length=1,
        max_length=len(FLEXIBLE_KINDS),
        description="Only memories of these kinds; all kinds when left out.",
    )
    session_id: Annotated[str, Field(pattern=SESSION_NAME_PATTERN)] | None = Field(
        default=None,
        description="The current conversation's session id: its efforts and its earlier "
        "messages that are no longer in the context are searched too.",
    )
    limit: Annotated[int, Field(ge=1, le=20), WholeNumber] | None = Field(
        default=None,
        description="At most this many memories, and as many efforts and messages (default "
        "5, or as configured).",
    )


Source = Callable[[ToolCall, SearchQuery], Awaitable[Section | None]]
# Where search_memory looks, in the order its result shows them; None: nothing to say.
SOURCES: tuple[Source, ...] = (
    search_sources.memories,
    search_sources.efforts,
    search_sources.messages,
)


async def search_memory(call: ToolCall, arguments: SearchMemoryArguments) -> ToolOutput:
    """The best matches of every source for the query."""
    search = SearchRepository(call.session, call.engine.corpus)
    query = await understand(
        call.engine,
        call.tenant,
        call.agent.id,
        search,
        arguments.query,
        arguments.kinds or FLEXIBLE_KINDS,
        limit=arguments.limit or call.settings.search_limit,
        session_id=arguments.session_id,
    )
    sections = [await source(call, query) for source in SOURCES]
    shown = tuple(s for s in sections if s is not None)
    efforts = any(i.reference and i.reference.kind == "effort" for s in shown for i in s.items)
    hints = [
        *([WORDS_ONLY] if query.vector is None else []),
        HINT,
        *([EFFORT_HINT] if efforts else []),
    ]
    return ToolOutput(shown, "\n".join(hints))
