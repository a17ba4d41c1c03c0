"""Every item of a listed collection, page after page, as an iterator (sync and async): the
agent's memories, the tenant's agents, an agent's sessions and builds."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Generic, Protocol, TypeVar, Unpack

from context_engine_client import calls
from context_engine_client.calls import MemoryFilters
from context_engine_client.core import AsyncSender, Call, SyncSender
from context_engine_client.models import AgentRead, ContextBuildSummary, MemoryRead, SessionRead

Item = TypeVar("Item", covariant=True)


class Page(Protocol, Generic[Item]):
    """A page of a list: its items, and the cursor of the next (none on the last)."""

    @property
    def items(self) -> Sequence[Item]: ...

    @property
    def next_cursor(self) -> str | None: ...


def _every(send: SyncSender, page_at: Callable[[str | None], Call[Page[Item]]]) -> Iterator[Item]:
    cursor: str | None = None
    while True:
        page = send.send(page_at(cursor))
        yield from page.items
        if not (cursor := page.next_cursor):
            return


async def _every_async(
    send: AsyncSender, page_at: Callable[[str | None], Call[Page[Item]]]
) -> AsyncIterator[Item]:
    cursor: str | None = None
    while True:
        page = await send.send(page_at(cursor))
        for item in page.items:
            yield item
        if not (cursor := page.next_cursor):
            return


class SyncPaging:
    """`ContextEngine`'s iterators over every page."""

    def iter_memories(
        self: SyncSender, agent: str, **filters: Unpack[MemoryFilters]
    ) -> Iterator[MemoryRead]:
        """Every memory of the agent that the filters keep, newest first."""
        return _every(self, lambda cursor: calls.memories(agent, filters, cursor))

    def iter_agents(self: SyncSender, *, limit: int | None = None) -> Iterator[AgentRead]:
        """Every agent of the tenant, newest first (`limit`: a page's size)."""
        return _every(self, lambda cursor: calls.agents(cursor, limit))

    def iter_sessions(
        self: SyncSender, agent: str, *, limit: int | None = None
    ) -> Iterator[SessionRead]:
        """Every session of the agent, newest first."""
        return _every(self, lambda cursor: calls.sessions(agent, cursor, limit))

    def iter_builds(
        self: SyncSender, agent: str, *, limit: int | None = None
    ) -> Iterator[ContextBuildSummary]:
        """Every stored build of the agent, newest first."""
        return _every(self, lambda cursor: calls.builds(agent, cursor, limit))


class AsyncPaging:
    """`AsyncContextEngine`'s iterators over every page (`async for`)."""

    def iter_memories(
        self: AsyncSender, agent: str, **filters: Unpack[MemoryFilters]
    ) -> AsyncIterator[MemoryRead]:
        """Every memory of the agent that the filters keep, newest first."""
        return _every_async(self, lambda cursor: calls.memories(agent, filters, cursor))

    def iter_agents(self: AsyncSender, *, limit: int | None = None) -> AsyncIterator[AgentRead]:
        """Every agent of the tenant, newest first (`limit`: a page's size)."""
        return _every_async(self, lambda cursor: calls.agents(cursor, limit))

    def iter_sessions(
        self: AsyncSender, agent: str, *, limit: int | None = None
    ) -> AsyncIterator[SessionRead]:
        """Every session of the agent, newest first."""
        return _every_async(self, lambda cursor: calls.sessions(agent, cursor, limit))

    def iter_builds(
        self: AsyncSender, agent: str, *, limit: int | None = None
    ) -> AsyncIterator[ContextBuildSummary]:
        """Every stored build of the agent, newest first."""
        return _every_async(self, lambda cursor: calls.builds(agent, cursor, limit))
