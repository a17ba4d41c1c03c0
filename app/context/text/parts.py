"""The score parts a manifest shows of a memory (an item, or a candidate left out) and of a
censor, whose relevance has fewer parts (the others read 0)."""

from collections.abc import Sequence

import numpy as np

from app.context.selection.constraints import ScoredCensor
from app.context.types import Scored


def score_parts(scored: Sequence[Scored]) -> list[dict[str, float]]:
    """The score components of each candidate at 4 decimals, rounded in one numpy call."""
    if not scored:
        return []
    names = tuple(scored[0].components)  # every candidate has the same components
    values = np.array([[one.components[name] for name in names] for one in scored])
    return [dict(zip(names, row, strict=True)) for row in np.round(values, 4).tolist()]


def censor_parts(censor: ScoredCensor) -> dict[str, float]:
    """What a censor's relevance is made of, in the items' score parts (in their order); the
    parts a censor has no use for read 0, its retention 1."""
    return {
        "semantic": round(censor.semantic, 4),
        "lexical": round(censor.words, 4),
        "frame": censor.frame,
        "recency": 0.0,
        "outcome": 0.0,
        "usage": 0.0,
        "confidence": 0.0,
        "adjacency": 0.0,
        "period": 0.0,
        "link": round(censor.hits, 4),  # tied to the build's strongest hits by its words
        "retention": 1.0,
    }
