"""The agents' active censors as this process last read them, each with its row version.

Every build reads the agent's active censors (`ContextRepository.standing`). Their trigger
words are stemmed by PostgreSQL and their rows carry a vector and a JSON document: for a couple
of hundred censors that cost a build several milliseconds, for rows that rarely change. So a
build sends the ids and row versions (`xmin`) it holds, and the database returns in full only
the censors that are new or changed since, with the ids and versions of all in their order; the
others come from here. While none changes, every build gets the same `CensorSet`, whose vectors
are stacked once. The database stays the authority: a censor retired, edited or embedded since
is read again, by any process.
"""

import uuid
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.context.selection.constraints import CensorSet
from app.context.types import Censor

MAX_CENSORS = 20_000  # past this many kept, the least recently built for agents' are forgotten

# (row version, censor) by memory id, for one agent.
Known = Mapping[uuid.UUID, tuple[int, Censor]]


@dataclass(frozen=True)
class _Held:
    censors: Known
    order: tuple[tuple[uuid.UUID, int], ...]  # (id, version) of each, in the agent's order
    set: CensorSet


class CensorCache:
    """The censors of the agents this process builds for, bounded in number."""

    def __init__(self, max_censors: int = MAX_CENSORS) -> None:
        self._max = max_censors
        self._agents: OrderedDict[uuid.UUID, _Held] = OrderedDict()
        self._count = 0

    def known(self, agent_id: uuid.UUID) -> Known:
        """The agent's censors held here (never changed in place): what a build may ask not
        to be sent."""
        held = self._agents.get(agent_id)
        if held is None:
            return {}
        self._agents.move_to_end(agent_id)
        return held.censors

    def keep(
        self,
        agent_id: uuid.UUID,
        known: Known,
        order: Sequence[tuple[uuid.UUID, int]],
        sent: Mapping[uuid.UUID, tuple[int, Censor]],
    ) -> CensorSet:
        """The agent's active censors as just read: `order` (id, version) of all, `sent` those
        the database returned in full, the others as `known` held them when the read began."""
        held = self._agents.get(agent_id)
        order = tuple(order)
        if held is not None and not sent and held.order == order:
            return held.set
        censors = {i: sent[i] if i in sent else known[i] for i, _version in order}
        kept = _Held(censors, order, CensorSet(censor for _version, censor in censors.values()))
        self._count += len(censors) - len(held.censors if held else ())
        self._agents.pop(agent_id, None)
        self._agents[agent_id] = kept
        while self._count > self._max and len(self._agents) > 1:
            _agent, dropped = self._agents.popitem(last=False)
            self._count -= len(dropped.censors)
        return kept.set

    def forget(self, agent_id: uuid.UUID) -> None:
        """Drop an erased agent's censors."""
        held = self._agents.pop(agent_id, None)
        self._count -= len(held.censors) if held else 0
