"""The baselines of the quality benchmark over the same turns, budgets and tokenizer."""

from collections import Counter
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from app.providers.embeddings import LocalEmbedder
from app.providers.tokenizer import TokenCounter
from bench.common.baselines import (
    Bm25,
    Ranking,
    by_score,
    dense_rank,
    pack,
    rrf_scores,
    with_neighbours,
)
from bench.common.ingest import Progress, progress
from bench.common.locomo import Conversation
from bench.common.recall import Outcome, recall_of

METHODS = ("fresh tail", "bm25", "dense", "fusion", "fusion+neighbours")
_BATCH = 64


def _embed(embedder: LocalEmbedder, texts: Sequence[str], bar: Progress) -> NDArray[np.float32]:
    parts = []
    for start in range(0, len(texts), _BATCH):
        chunk = texts[start : start + _BATCH]
        parts.append(embedder.embed_sync(chunk))
        bar.update(len(chunk))
    return np.concatenate(parts) if parts else np.zeros((0, 384), dtype=np.float32)


def _rankings(
    conv: Conversation,
    bm25: Bm25,
    turn_vectors: NDArray[np.float32],
    query: str,
    query_vector: NDArray[np.float32],
) -> dict[str, Ranking]:
    size = len(conv.turns)
    lexical = bm25.rank(query)
    dense = dense_rank(query_vector, turn_vectors)
    fused = rrf_scores([lexical, dense], size)
    sessions = [t.session for t in conv.turns]
    order = sorted(range(size), key=lambda i: conv.turns[i].at, reverse=True)
    return {
        "fresh tail": order,
        "bm25": lexical,
        "dense": dense,
        "fusion": by_score(fused),
        "fusion+neighbours": by_score(with_neighbours(fused, sessions)),
    }


def run_baselines(
    conversations: Sequence[Conversation], budgets: Sequence[int], counter: TokenCounter
) -> tuple[dict[str, list[Outcome]], Counter[str]]:
    """Outcomes per method, and per method the packs whose recounted text overflowed."""
    embedder = LocalEmbedder()
    outcomes: dict[str, list[Outcome]] = {m: [] for m in METHODS}
    overflows: Counter[str] = Counter()
    texts = sum(len(c.turns) + len(c.questions) for c in conversations)
    with progress(texts, "baselines: embed", "text") as bar:
        vectors = [
            (
                _embed(embedder, [t.render() for t in conv.turns], bar),
                _embed(embedder, [q.text for q in conv.questions], bar),
            )
            for conv in conversations
        ]
    questions = sum(len(c.questions) for c in conversations)
    with progress(questions, "baselines: rank", "q") as bar:
        for conv, (turn_vectors, question_vectors) in zip(conversations, vectors, strict=True):
            lines = [t.render() for t in conv.turns]
            costs = [counter.count(line + "\n") for line in lines]
            bm25 = Bm25(lines)
            for question, query_vector in zip(conv.questions, question_vectors, strict=True):
                rankings = _rankings(conv, bm25, turn_vectors, question.text, query_vector)
                for method, ranking in rankings.items():
                    for budget in budgets:
                        packed = pack(ranking, costs, lines, budget, counter.count)
                        overflows[method] += packed.recount > budget
                        included = {conv.turns[i].dia_id for i in packed.indices}
                        recall = recall_of(question, included)
                        # Whole turns: what is in is in at full detail.
                        outcomes[method].append(
                            Outcome(question.category, budget, recall, packed.tokens, recall)
                        )
                bar.update(1)
    return outcomes, overflows
