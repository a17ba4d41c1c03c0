"""What a build's manifest says of the candidates it left out: the best few (memories and
constraints) with why and what their score is made of, and how many were left out by reason."""

import uuid
from collections import Counter
from collections.abc import Mapping, Sequence

from app.context.selection.constraints import ScoredCensor
from app.context.text.parts import censor_parts, score_parts
from app.context.types import Excluded

# Left-out memories, and left-out constraints, a manifest lists at most (best first).
LEFT_OUT_SHOWN = 50


def left_out_read(
    excluded: Sequence[Excluded],
    censors: Sequence[ScoredCensor],
    shown_censors: Mapping[uuid.UUID, int],
    compact: bool,
) -> tuple[list[dict[str, object]], Counter[str]]:
    """The best candidates left out (none when compact), and how many were, by reason."""
    hidden = [s for s in censors if s.censor.memory_id not in shown_censors]
    counts: Counter[str] = Counter(e.reason for e in excluded)
    counts.update("budget" if s.chosen else "score" for s in hidden)
    if compact:
        return [], counts
    memories = excluded[:LEFT_OUT_SHOWN]
    listed: list[dict[str, object]] = [
        {
            "memory_id": e.scored.candidate.memory_id,
            "kind": e.scored.candidate.kind,
            "reason": e.reason,
            "score": e.scored.score,
            "components": parts,
        }
        for e, parts in zip(memories, score_parts([e.scored for e in memories]), strict=True)
    ]
    listed += [
        {
            "memory_id": s.censor.memory_id,
            "kind": "censor",
            "reason": "budget" if s.chosen else "score",  # no room, or not relevant enough
            "score": s.relevance,
            "components": censor_parts(s),
        }
        for s in hidden[:LEFT_OUT_SHOWN]
    ]
    return listed, counts
