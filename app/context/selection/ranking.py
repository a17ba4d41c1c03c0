"""The rank step: a candidate's composite score, relevance first, then frame, recency, outcome,
usage and trust, with the weights of the settings (`ContextSettings.weights`). Pure."""

import math
from collections.abc import Sequence
from datetime import datetime

from app.context.types import Candidate, Frame, Period, Scored
from app.core.context_config import RankingWeights

OUTCOME_BOOST = {"success": 1.2, "partial": 1.0, "failure": 0.8, "pending": 0.9}
# A fact's standing: confirmed again and again makes it core.
FACT_STANDING = {"core": 1.2, "confirmed": 1.1, "new": 1.0}


def standing(candidate: Candidate) -> float:
    """How it turned out, from 0.8 to 1.2: a decision's outcome, a fact's standing (core >
    confirmed > new), a procedure's share of successful activations (ineffective < active <
    effective; 1 before it has any)."""
    if candidate.kind == "fact":
        return FACT_STANDING.get(candidate.state, 1.0)
    if candidate.kind == "procedure":
        if candidate.effectiveness is None:
            return 1.0
        return 0.8 + 0.4 * min(max(candidate.effectiveness, 0.0), 1.0)
    return OUTCOME_BOOST.get(candidate.outcome or "", 1.0)


def relevance(candidate: Candidate, top_lexical: float) -> tuple[float, float]:
    """Semantic similarity (clipped at 0) and the full-text rank relative to the best one
    (or to the weight of the input's rarest words, where that is more)."""
    semantic = max(candidate.semantic or 0.0, 0.0)
    lexical = candidate.lexical / top_lexical if top_lexical > 0 else 0.0
    return semantic, lexical


def rank(
    candidates: Sequence[Candidate],
    frame: Frame,
    now: datetime,
    weights: RankingWeights,
    half_life_days: float,
    period: Period | None = None,
    word_reference: float = 0.0,
) -> list[Scored]:
    """Score every candidate and sort best first (ties broken by their text, so builds are
    stable); recency halves every `half_life_days` before `now`. A word match counts in full
    when it is the best one and weighs at least `word_reference` (`WordHits.reference`)."""
    top_lexical = max(max((c.lexical for c in candidates), default=0.0), word_reference)
    strength = {c.memory_id: sum(relevance(c, top_lexical)) / 2 for c in candidates}
    decay = math.log(2) / half_life_days
    # The frame says how much recency matters for this input (the seed's weight at 1).
    recency_weight = weights.recency * frame.recency
    now_seconds = now.timestamp()
    scored = []
    for candidate in candidates:
        semantic, lexical = relevance(candidate, top_lexical)
        age_days = max((now_seconds - candidate.occurred_at.timestamp()) / 86400, 0.0)
        usage = candidate.usage
        components = {
            "semantic": semantic,
            "lexical": lexical,
            "frame": frame.priorities.get(candidate.kind, 0.5),
            "recency": math.exp(-decay * age_days),
            "outcome": standing(candidate),
            "usage": min(1.0 + math.log10(usage) * 0.1, 1.5) if usage > 0 else 1.0,
            "confidence": candidate.confidence if candidate.confidence is not None else 1.0,
            "adjacency": strength.get(candidate.neighbour_of, 0.0)
            if candidate.neighbour_of
            else 0.0,
            # 1 when it happened in the day or month the input names.
            "period": 1.0 if period is not None and candidate.occurred_at in period else 0.0,
            # Tied to a strong hit or the input by an anchor they share
            # (`app.context.retrieval.links`).
            "link": candidate.link.strength if candidate.link is not None else 0.0,
            # Retention's share of the score (`app.retention.policy`): a fact never confirmed
            # nor referenced for long ranks lower, its data kept.
            "retention": candidate.rank_factor,
        }
        score = candidate.rank_factor * (
            weights.semantic * semantic
            + weights.lexical * lexical
            + weights.frame * components["frame"]
            + recency_weight * components["recency"]
            + weights.outcome * components["outcome"]
            + weights.usage * components["usage"]
            + weights.confidence * components["confidence"]
            + weights.adjacency * components["adjacency"]
            + weights.period * components["period"]
            + weights.link * components["link"]
        )
        scored.append(Scored(candidate, round(score, 6), components))
    # Ties go by what the memories say, not by their random ids: the same data, input and
    # `now` give the same context, byte for byte, however often it is written again.
    scored.sort(key=lambda s: (-s.score, s.candidate.micro, s.candidate.summary, s.candidate.seq))
    return scored
