"""The efforts' search: the session's efforts found by their words and by their messages'
meaning, fused as recall fuses them (1/(60 + rank) for each order an effort is in, summed); an
effort the query names (`e_4`) comes first. Pure."""

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

RANK_OFFSET = 60
Found = Literal["words", "meaning", "both"]


@dataclass(frozen=True, slots=True)
class Hit:
    """An effort found, its fused score, how, and its best message's similarity (None when it
    was found by its words alone)."""

    effort_id: uuid.UUID
    score: float
    by: Found
    similarity: float | None = None


def fuse(
    words: Sequence[tuple[uuid.UUID, float]],
    meaning: Sequence[tuple[uuid.UUID, float]],
    limit: int,
) -> list[Hit]:
    """`words`: (effort, 1 when named + ts_rank), best first; `meaning`: (effort, similarity),
    best first. The best `limit` of both."""
    scores: dict[uuid.UUID, float] = {}
    for rank, (effort_id, score) in enumerate(words, start=1):
        named = 1.0 if score >= 1.0 else 0.0
        scores[effort_id] = named + 1 / (RANK_OFFSET + rank)
    similarity = dict(meaning)
    for rank, (effort_id, _) in enumerate(meaning, start=1):
        scores[effort_id] = scores.get(effort_id, 0.0) + 1 / (RANK_OFFSET + rank)
    by_words = {effort_id for effort_id, _ in words}
    hits = [
        Hit(
            effort_id,
            score,
            "both" if effort_id in by_words and effort_id in similarity
            else "words" if effort_id in by_words else "meaning",
            similarity.get(effort_id),
        )
        for effort_id, score in scores.items()
    ]  # fmt: skip
    hits.sort(key=lambda hit: -hit.score)
    return hits[:limit]
