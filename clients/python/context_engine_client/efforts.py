"""A session's efforts: open, list, search, read, conclude and expand them (sync and async)."""

from __future__ import annotations

from context_engine_client.calls import keyed, segment
from context_engine_client.core import AsyncSender, Call, SyncSender, decode
from context_engine_client.models import EffortExpanded, EffortList, EffortRead, EffortSearchResult


def _path(agent: str, session: str, *rest: str) -> str:
    tail = "".join(f"/{segment(part)}" for part in rest)
    return f"/agents/{segment(agent)}/sessions/{segment(session)}/efforts{tail}"


def open_effort(
    agent: str, session: str, title: str, goal: str | None, idempotency_key: str | None
) -> Call[EffortRead]:
    body = {"title": title} | ({"goal": goal} if goal is not None else {})
    read = decode(EffortRead.model_validate_json)
    return Call("POST", _path(agent, session), read, body, headers=keyed(idempotency_key))


def efforts(agent: str, session: str) -> Call[EffortList]:
    return Call("GET", _path(agent, session), decode(EffortList.model_validate_json))


def search_efforts(
    agent: str, session: str, query: str, limit: int | None
) -> Call[EffortSearchResult]:
    params: dict[str, str | int | list[str]] = {"query": query}
    if limit is not None:
        params["limit"] = limit
    read = decode(EffortSearchResult.model_validate_json)
    return Call("GET", _path(agent, session, "search"), read, params=params)


def get_effort(agent: str, session: str, effort: str) -> Call[EffortRead]:
    return Call("GET", _path(agent, session, effort), decode(EffortRead.model_validate_json))


def conclude_effort(agent: str, session: str, effort: str) -> Call[EffortRead]:
    path = _path(agent, session, effort) + "/conclude"
    return Call("POST", path, decode(EffortRead.model_validate_json))


def expand_effort(agent: str, session: str, effort: str) -> Call[EffortExpanded]:
    path = _path(agent, session, effort) + "/expand"
    return Call("POST", path, decode(EffortExpanded.model_validate_json))


class SyncEfforts:
    """`ContextEngine`'s effort methods."""

    def open_effort(
        self: SyncSender,
        agent: str,
        session: str,
        title: str,
        *,
        goal: str | None = None,
        idempotency_key: str | None = None,
    ) -> EffortRead:
        """Open an effort in a session: the messages appended from now on belong to it."""
        return self.send(open_effort(agent, session, title, goal, idempotency_key))

    def efforts(self: SyncSender, agent: str, session: str) -> EffortList:
        return self.send(efforts(agent, session))

    def search_efforts(
        self: SyncSender, agent: str, session: str, query: str, *, limit: int | None = None
    ) -> EffortSearchResult:
        """The session's efforts, evicted ones too, that the query's words find."""
        return self.send(search_efforts(agent, session, query, limit))

    def get_effort(self: SyncSender, agent: str, session: str, effort: str) -> EffortRead:
        return self.send(get_effort(agent, session, effort))

    def conclude_effort(self: SyncSender, agent: str, session: str, effort: str) -> EffortRead:
        """Conclude it: its summary is made in the background, its messages leave the window."""
        return self.send(conclude_effort(agent, session, effort))

    def expand_effort(self: SyncSender, agent: str, session: str, effort: str) -> EffortExpanded:
        """Bring a concluded effort's messages back into the next builds."""
        return self.send(expand_effort(agent, session, effort))


class AsyncEfforts:
    """`AsyncContextEngine`'s effort methods."""

    async def open_effort(
        self: AsyncSender,
        agent: str,
        session: str,
        title: str,
        *,
        goal: str | None = None,
        idempotency_key: str | None = None,
    ) -> EffortRead:
        """Open an effort in a session: the messages appended from now on belong to it."""
        return await self.send(open_effort(agent, session, title, goal, idempotency_key))

    async def efforts(self: AsyncSender, agent: str, session: str) -> EffortList:
        return await self.send(efforts(agent, session))

    async def search_efforts(
        self: AsyncSender, agent: str, session: str, query: str, *, limit: int | None = None
    ) -> EffortSearchResult:
        """The session's efforts, evicted ones too, that the query's words find."""
        return await self.send(search_efforts(agent, session, query, limit))

    async def get_effort(self: AsyncSender, agent: str, session: str, effort: str) -> EffortRead:
        return await self.send(get_effort(agent, session, effort))

    async def conclude_effort(
        self: AsyncSender, agent: str, session: str, effort: str
    ) -> EffortRead:
        """Conclude it: its summary is made in the background, its messages leave the window."""
        return await self.send(conclude_effort(agent, session, effort))

    async def expand_effort(
        self: AsyncSender, agent: str, session: str, effort: str
    ) -> EffortExpanded:
        """Bring a concluded effort's messages back into the next builds."""
        return await self.send(expand_effort(agent, session, effort))
