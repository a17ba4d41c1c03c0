"""What context building keeps for the life of the process: providers, settings, the frame
selector (with its cached example vectors), the agents' corpus figures and their censors as last
read; and the request dependency that hands it to a route."""

import uuid
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends, Request

from app.context.frames.choice import FrameSelector
from app.context.retrieval.censor_cache import CensorCache
from app.context.retrieval.corpus import CorpusStats
from app.core.context_config import ContextSettings
from app.providers.container import Providers


@dataclass
class ContextEngine:
    """Shared by every request of one process."""

    providers: Providers
    settings: ContextSettings
    selector: FrameSelector
    corpus: CorpusStats = field(default_factory=CorpusStats)
    censors: CensorCache = field(default_factory=CensorCache)
    served_first_build: bool = False

    @classmethod
    def create(cls, providers: Providers, settings: ContextSettings) -> "ContextEngine":
        selector = FrameSelector(providers.embedder, settings.embedding_deadline_seconds)
        return cls(providers, settings, selector)

    def forget_agent(self, agent_id: uuid.UUID) -> None:
        """Drop what this process keeps of an erased agent. Nothing else could show it: the
        figures and censors kept are the agent's by its row id, and a new agent of the same
        name has a new one; this frees their room at once."""
        self.corpus.forget(agent_id)
        self.censors.forget(agent_id)


async def _engine(request: Request) -> ContextEngine:
    engine: ContextEngine = request.app.state.context_engine
    return engine


Engine = Annotated[ContextEngine, Depends(_engine)]
