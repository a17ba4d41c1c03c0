"""The measure: evidence recall of one question at one budget, and its means."""

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from bench.common.locomo import Question, category_name

BUDGETS = (500, 1000, 2000, 4000)


@dataclass(frozen=True)
class Outcome:
    """One question at one budget for one method."""

    category: int
    budget: int
    recall: float  # evidence in the context at any detail
    tokens: int
    recall_summary: float  # evidence in at summary detail (a whole turn), not only a micro line


@dataclass(frozen=True)
class BudgetSummary:
    """Means over the questions at one budget."""

    recall: float
    all_evidence: float
    tokens_mean: float
    by_category: dict[str, float]
    questions: int
    # Absent from results written before they were measured.
    recall_summary: float | None = None
    by_category_summary: dict[str, float] = field(default_factory=dict)


def recall_of(question: Question, included: Collection[str]) -> float:
    """The share of the question's evidence turns that are in the context."""
    return sum(1 for e in question.evidence if e in included) / len(question.evidence)


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def summarise(outcomes: Sequence[Outcome]) -> dict[int, BudgetSummary]:
    """Mean recall (at any detail and at summary or more) per budget and category, share with
    all evidence, mean tokens. Categories are those of the outcomes, in number order."""
    result: dict[int, BudgetSummary] = {}
    categories = sorted({o.category for o in outcomes})
    for budget in sorted({o.budget for o in outcomes}):
        rows = [o for o in outcomes if o.budget == budget]
        by_number = {n: [o for o in rows if o.category == n] for n in categories}
        result[budget] = BudgetSummary(
            recall=round(_mean([o.recall for o in rows]), 4),
            all_evidence=round(_mean([float(o.recall == 1.0) for o in rows]), 4),
            tokens_mean=round(_mean([float(o.tokens) for o in rows]), 1),
            by_category={
                category_name(n): round(_mean([o.recall for o in those]), 4)
                for n, those in by_number.items()
                if those
            },
            questions=len(rows),
            recall_summary=round(_mean([o.recall_summary for o in rows]), 4),
            by_category_summary={
                category_name(n): round(_mean([o.recall_summary for o in those]), 4)
                for n, those in by_number.items()
                if those
            },
        )
    return result
