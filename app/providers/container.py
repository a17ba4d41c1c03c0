"""The providers one process uses, built once by the lifespan or a command."""

from dataclasses import dataclass

from app.core.config import Settings
from app.providers.anchors import AnchorFinder, build_anchor_finder
from app.providers.breaker import CircuitBreaker
from app.providers.embeddings import Embedder, GuardedEmbedder, build_embedder, build_rescorer
from app.providers.query_vectors import QueryVectors
from app.providers.summarizer import ExtractiveSummarizer, GuardedSummarizer, build_llm_summarizer
from app.providers.tokenizer import TokenCounter


@dataclass(frozen=True)
class Providers:
    """Tokenizer, summarizers, anchor finder, embedder and the recent inputs' vectors; the
    rescoring model and its inputs' vectors, when one is set."""

    tokens: TokenCounter
    extractive: ExtractiveSummarizer
    anchors: AnchorFinder
    embedder: GuardedEmbedder
    llm: GuardedSummarizer | None
    queries: QueryVectors
    rescorer: GuardedEmbedder | None = None
    rescore_queries: QueryVectors | None = None

    @property
    def input_models(self) -> list[QueryVectors]:
        """The recent inputs' vectors of each model an input is embedded with, the search
        model's first."""
        return [q for q in (self.queries, self.rescore_queries) if q is not None]

    async def aclose(self) -> None:
        """Release the providers' connections."""
        await self.embedder.aclose()
        if self.rescorer is not None:
            await self.rescorer.aclose()
        if self.llm is not None:
            await self.llm.aclose()


def build_providers(settings: Settings, *, embedder: Embedder | None = None) -> Providers:
    """Load the tokenizer vocabularies and the models (CPU-bound: call from a thread)."""
    tokens = TokenCounter(settings.data_dir / "tiktoken", settings.tokenizer.default_encoding)
    llm = build_llm_summarizer(settings.llm, tokens)
    # Unset, the workers are not several processes of one `serve`: the cores are all ours.
    processes = settings.api.workers or 1
    guarded = GuardedEmbedder(
        embedder or build_embedder(settings.embeddings, processes),
        CircuitBreaker("embeddings", settings.breaker),
    )
    rescorer = build_rescorer(settings.embeddings, processes)
    rescoring = (
        None
        if rescorer is None
        else GuardedEmbedder(rescorer, CircuitBreaker("rescore_embeddings", settings.breaker))
    )
    return Providers(
        tokens=tokens,
        extractive=ExtractiveSummarizer(tokens),
        anchors=build_anchor_finder(),
        embedder=guarded,
        llm=GuardedSummarizer(llm, CircuitBreaker("llm", settings.breaker)) if llm else None,
        queries=QueryVectors(guarded, settings.embeddings.query_cache_size),
        rescorer=rescoring,
        rescore_queries=None
        if rescoring is None
        else QueryVectors(rescoring, settings.embeddings.query_cache_size),
    )
