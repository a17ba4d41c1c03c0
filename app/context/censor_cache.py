"""The agents' active censors as this process last read them, each with its row version.

Every build reads the agent's active censors (`ContextRepository.standing`). Their trigger
words are stemmed by PostgreSQL and their rows carry a vector and a JSON document: for a couple
of hundred censors that cost a build several milliseconds, for rows that rarely change. So a
build sends the ids and row versions (`xmin`) it holds, and the database returns in full only
the censors that are new or changed since; the others come from here. The database stays the
authority: a censor retired, edited or embedded since is read again, by any process.
"""

import uuid
from collections import OrderedDict
from collections.abc import Iterable, Mapping

from app.context.types import Censor

MAX_CENSORS = 20_000  # past this many kept, the least recently built for agents' are forgotten

# (row version, censor) by memory id, for one agent.
Known = Mapping[uuid.UUID, tuple[int, Censor]]


class CensorCache:
    """The censors of the agents this process builds for, bounded in number."""

    def __init__(self, max_censors: int = MAX_CENSORS) -> None:
        self._max = max_censors
        self._agents: OrderedDict[uuid.UUID, dict[uuid.UUID, tuple[int, Censor]]] = OrderedDict()
        self._count = 0

    def known(self, agent_id: uuid.UUID) -> Known:
        """A snapshot of the agent's censors held here: what a build may ask not to be sent."""
        held = self._agents.get(agent_id)
        if held is None:
            return {}
        self._agents.move_to_end(agent_id)
        return dict(held)

    def keep(self, agent_id: uuid.UUID, censors: Iterable[tuple[int, Censor]]) -> None:
        """The agent's active censors as just read (with their versions), replacing the old."""
        held = {censor.memory_id: (version, censor) for version, censor in censors}
        self._count += len(held) - len(self._agents.pop(agent_id, {}))
        self._agents[agent_id] = held
        while self._count > self._max and len(self._agents) > 1:
            _agent, dropped = self._agents.popitem(last=False)
            self._count -= len(dropped)

    def forget(self, agent_id: uuid.UUID) -> None:
        """Drop an erased agent's censors."""
        self._count -= len(self._agents.pop(agent_id, {}))
