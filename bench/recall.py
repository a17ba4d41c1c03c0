"""The measure: evidence recall of one question at one budget, and its means."""

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from bench.locomo import CATEGORIES, Question

BUDGETS = (500, 1000, 2000, 4000)


@dataclass(frozen=True)
class Outcome:
    """One question at one budget for one method."""

    category: int
    budget: int
    recall: float
    tokens: int


@dataclass(frozen=True)
class BudgetSummary:
    """Means over the questions at one budget."""

    recall: float
    all_evidence: float
    tokens_mean: float
    by_category: dict[str, float]
    questions: int


def recall_of(question: Question, included: Collection[str]) -> float:
    """The share of the question's evidence turns that are in the context."""
    return sum(1 for e in question.evidence if e in included) / len(question.evidence)


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def summarise(outcomes: Sequence[Outcome]) -> dict[int, BudgetSummary]:
    """Mean recall per budget and category, share with all evidence, mean tokens."""
    result: dict[int, BudgetSummary] = {}
    for budget in sorted({o.budget for o in outcomes}):
        rows = [o for o in outcomes if o.budget == budget]
        by_category = {
            name: round(_mean([o.recall for o in rows if o.category == number]), 4)
            for number, name in CATEGORIES.items()
            if any(o.category == number for o in rows)
        }
        result[budget] = BudgetSummary(
            recall=round(_mean([o.recall for o in rows]), 4),
            all_evidence=round(_mean([float(o.recall == 1.0) for o in rows]), 4),
            tokens_mean=round(_mean([float(o.tokens) for o in rows]), 1),
            by_category=by_category,
            questions=len(rows),
        )
    return result
