"""Baselines computed in the benchmark process: rank turns, pack whole turns into the budget."""

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# A short English stop list, so that BM25 ranks by content words (as PostgreSQL's does).
_STOP_WORDS = (
    "a an and are as at be been but by can could did do does for from had has have he her hers "
    "him his how i if in into is it its me my of on or our she so that the their them then there "
    "they this to was we were what when where which who whom why will with would you your"
)
_STOP = frozenset(_STOP_WORDS.split())

Ranking = list[int]
RRF_K = 60


def words(text: str) -> list[str]:
    """Lower-cased content words."""
    return [w for w in (m.lower() for m in _WORD.findall(text)) if w not in _STOP]


class Bm25:
    """Okapi BM25 (k1 1.2, b 0.75, the non-negative idf of Lucene) over a list of documents."""

    def __init__(self, documents: Sequence[str], k1: float = 1.2, b: float = 0.75) -> None:
        self._docs = [Counter(words(d)) for d in documents]
        self._lengths = np.array([sum(c.values()) for c in self._docs], dtype=np.float64)
        average = float(self._lengths.mean()) if len(self._docs) else 1.0
        self._norm = k1 * (1 - b + b * self._lengths / max(average, 1e-9))
        self._k1 = k1
        frequency: Counter[str] = Counter()
        for counts in self._docs:
            frequency.update(counts.keys())
        n = len(self._docs)
        self._idf = {w: math.log(1 + (n - df + 0.5) / (df + 0.5)) for w, df in frequency.items()}

    def scores(self, query: str) -> NDArray[np.float64]:
        result = np.zeros(len(self._docs), dtype=np.float64)
        for word in set(words(query)):
            idf = self._idf.get(word)
            if idf is None:
                continue
            tf = np.array([d.get(word, 0) for d in self._docs], dtype=np.float64)
            result += idf * tf * (self._k1 + 1) / (tf + self._norm)
        return result

    def rank(self, query: str) -> Ranking:
        """Documents that share a word with the query, best first."""
        scores = self.scores(query)
        order = np.argsort(-scores, kind="stable")
        return [int(i) for i in order if scores[i] > 0]


def dense_rank(query: NDArray[np.float32], documents: NDArray[np.float32]) -> Ranking:
    """All documents by cosine similarity to the query (vectors are L2-normalised)."""
    return [int(i) for i in np.argsort(-(documents @ query), kind="stable")]


def rrf_scores(rankings: Sequence[Ranking], size: int, k: int = RRF_K) -> NDArray[np.float64]:
    """Reciprocal-rank fusion: the sum of 1 / (k + rank) over the rankings a document is in."""
    scores = np.zeros(size, dtype=np.float64)
    for ranking in rankings:
        for position, doc in enumerate(ranking, start=1):
            scores[doc] += 1.0 / (k + position)
    return scores


def by_score(scores: NDArray[np.float64]) -> Ranking:
    order = np.argsort(-scores, kind="stable")
    return [int(i) for i in order if scores[i] > 0]


def with_neighbours(
    scores: NDArray[np.float64], sessions: Sequence[int], share: float = 0.5
) -> NDArray[np.float64]:
    """Add to each turn `share` of the better fused score of its neighbours in the session."""
    boosted = scores.copy()
    for i in range(len(scores)):
        near = [
            scores[j] for j in (i - 1, i + 1) if 0 <= j < len(scores) and sessions[j] == sessions[i]
        ]
        if near:
            boosted[i] += share * max(near)
    return boosted


@dataclass(frozen=True)
class Packed:
    """Turns that fit the budget, the tokens they take, and the exact recount of their text."""

    indices: list[int]
    tokens: int
    recount: int


def pack(
    ranking: Ranking,
    costs: Sequence[int],
    lines: Sequence[str],
    budget: int,
    count: Callable[[str], int],
) -> Packed:
    """Whole turns in rank order, one line each, skipping those that no longer fit."""
    chosen: list[int] = []
    used = 0
    smallest = min(costs) if costs else 0
    for index in ranking:
        if used + costs[index] <= budget:
            chosen.append(index)
            used += costs[index]
            if budget - used < smallest:
                break
    text = "".join(lines[i] + "\n" for i in chosen)
    return Packed(chosen, used, count(text) if chosen else 0)
