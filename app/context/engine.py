"""What context assembly keeps for the life of the process: providers, frame selector, settings."""

import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field

from app.context.frames import FrameSelector
from app.context.ranking import Weights
from app.core.config import ContextSettings
from app.providers.container import Providers

# Per-agent figures a build needs and may read a minute late: the agent's size (exact or HNSW
# search) and how many memories hold its frequent words. Counting a frequent word reads up to
# CE_CONTEXT__COMMON_WORD_MEMORIES rows; a rarer word is counted in every build, which is cheap
# and finds a memory by a new word as soon as it is written.
_KEPT_SECONDS = 60.0
_REMEMBERED_WORD_MEMORIES = 50


def _fresh(entry: tuple[float, object]) -> bool:
    return time.monotonic() - entry[0] <= _KEPT_SECONDS


@dataclass
class ContextEngine:
    """Shared by every request of one process."""

    providers: Providers
    settings: ContextSettings
    selector: FrameSelector
    served_first_build: bool = False
    _sizes: dict[uuid.UUID, tuple[float, int]] = field(default_factory=dict)
    _words: dict[uuid.UUID, tuple[float, dict[str, int]]] = field(default_factory=dict)

    @classmethod
    def create(cls, providers: Providers, settings: ContextSettings) -> "ContextEngine":
        selector = FrameSelector(providers.embedder, settings.embedding_deadline_seconds)
        return cls(providers, settings, selector)

    @property
    def weights(self) -> Weights:
        s = self.settings
        return Weights(
            semantic=s.weight_semantic,
            frame=s.weight_frame,
            recency=s.weight_recency,
            outcome=s.weight_outcome,
            usage=s.weight_usage,
            confidence=s.weight_confidence,
            lexical=s.weight_lexical,
            adjacency=s.weight_adjacency,
            period=s.weight_period,
            half_life_days=s.half_life_days,
        )

    def cached_size(self, agent_id: uuid.UUID) -> int | None:
        """An agent's memory count seen in the last minute (picks exact or HNSW search)."""
        entry = self._sizes.get(agent_id)
        return entry[1] if entry is not None and _fresh(entry) else None

    def remember_size(self, agent_id: uuid.UUID, size: int) -> None:
        self._sizes[agent_id] = (time.monotonic(), size)

    def known_words(self, agent_id: uuid.UUID) -> Mapping[str, int]:
        """The agent's frequent words counted in the last minute, with their memory counts."""
        entry = self._words.get(agent_id)
        return entry[1] if entry is not None and _fresh(entry) else {}

    def remember_words(self, agent_id: uuid.UUID, frequencies: dict[str, int]) -> None:
        """Keep the counts of the frequent words until the agent's entry is a minute old."""
        frequent = {w: n for w, n in frequencies.items() if n >= _REMEMBERED_WORD_MEMORIES}
        if not frequent:
            return
        entry = self._words.get(agent_id)
        if entry is not None and _fresh(entry):
            entry[1].update(frequent)
        else:
            self._words[agent_id] = (time.monotonic(), frequent)
