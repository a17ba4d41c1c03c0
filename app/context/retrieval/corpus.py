"""What the search knows of each agent's memories as a whole, kept for a minute: how many there
are (which picks exact or approximate vector search), in how many its frequent words occur
(their rarity weighs the word matches), and which anchors are in too many to tie any.

Counting a frequent word reads up to CE_CONTEXT__COMMON_WORD_MEMORIES rows, so its count is
kept; a rarer word is counted in every build, which is cheap and finds a memory by a new word as
soon as it is written.
"""

import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field

KEPT_SECONDS = 60.0
FREQUENT_WORD_MEMORIES = 50  # words in at least this many memories are kept
MAX_AGENTS = 10_000  # past this many agents, the least recently built for are forgotten


@dataclass
class _AgentFigures:
    size: int | None = None
    size_at: float = 0.0
    words: dict[str, int] = field(default_factory=dict)
    words_at: float = 0.0
    common_anchors: set[str] = field(default_factory=set)
    anchors_at: float = 0.0


class CorpusStats:
    """The figures of the agents this process builds for, bounded in age and in number."""

    def __init__(
        self,
        kept_seconds: float = KEPT_SECONDS,
        max_agents: int = MAX_AGENTS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._kept = kept_seconds
        self._max_agents = max_agents
        self._clock = clock
        self._agents: OrderedDict[uuid.UUID, _AgentFigures] = OrderedDict()

    def size(self, agent_id: uuid.UUID) -> int | None:
        """The agent's memory count, if counted in the last minute."""
        figures = self._agents.get(agent_id)
        if figures is None or figures.size is None or not self._fresh(figures.size_at):
            return None
        return figures.size

    def remember_size(self, agent_id: uuid.UUID, size: int) -> None:
        figures = self._figures(agent_id)
        figures.size, figures.size_at = size, self._clock()

    def known_words(self, agent_id: uuid.UUID) -> Mapping[str, int]:
        """The agent's frequent words counted in the last minute, with their memory counts."""
        figures = self._agents.get(agent_id)
        if figures is None or not self._fresh(figures.words_at):
            return {}
        return figures.words

    def remember_words(self, agent_id: uuid.UUID, frequencies: Mapping[str, int]) -> None:
        """Keep the counts of the frequent words until the agent's word counts are a minute
        old; then every word is counted again."""
        frequent = {w: n for w, n in frequencies.items() if n >= FREQUENT_WORD_MEMORIES}
        if not frequent:
            return
        figures = self._figures(agent_id)
        if self._fresh(figures.words_at):
            figures.words.update(frequent)
        else:
            figures.words, figures.words_at = frequent, self._clock()

    def common_anchors(self, agent_id: uuid.UUID) -> frozenset[str]:
        """The agent's anchors found in too many memories to tie any, in the last minute."""
        figures = self._agents.get(agent_id)
        if figures is None or not self._fresh(figures.anchors_at):
            return frozenset()
        return frozenset(figures.common_anchors)

    def remember_common_anchors(self, agent_id: uuid.UUID, anchors: Collection[str]) -> None:
        """Keep the anchors a build found too common until the agent's are a minute old."""
        if not anchors:
            return
        figures = self._figures(agent_id)
        if self._fresh(figures.anchors_at):
            figures.common_anchors.update(anchors)
        else:
            figures.common_anchors, figures.anchors_at = set(anchors), self._clock()

    def forget(self, agent_id: uuid.UUID) -> None:
        """Drop an erased agent's figures."""
        self._agents.pop(agent_id, None)

    def _fresh(self, at: float) -> bool:
        return self._clock() - at <= self._kept

    def _figures(self, agent_id: uuid.UUID) -> _AgentFigures:
        figures = self._agents.get(agent_id)
        if figures is None:
            figures = self._agents[agent_id] = _AgentFigures()
            while len(self._agents) > self._max_agents:
                self._agents.popitem(last=False)
        self._agents.move_to_end(agent_id)
        return figures
