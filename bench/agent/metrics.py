"""The measures of the typed-memory benchmark: what one build included, and the means. Pure."""

import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bench.agent.data import QuestionSpec
from bench.common.build_view import BuildView

BUDGETS = (1000, 2000, 4000)
OVERALL = "overall"
CENSOR_DETAIL = "censor"  # a censor found by its line in the text: the whole line, never micro


def included(
    build: BuildView, key_of: Mapping[uuid.UUID, str], censor_patterns: Mapping[str, str]
) -> tuple[dict[str, str], int]:
    """The detail of each memory in the context, by key, and the items naming no known memory.

    Every item of every layer counts (identity and working memory are not items). Censors the
    manifest does not list are found by their line in the text ("- BLOCK: pattern — reason"),
    whatever the action it names: a warning escalated by its activations is rendered BLOCK."""
    details: dict[str, str] = {}
    unknown = 0
    for item in (item for layer in build.layers for item in layer.items):
        key = key_of.get(item.memory_id)
        if key is None:
            unknown += 1
        else:
            details[key] = item.detail
    for key, pattern in censor_patterns.items():
        if key not in details and _has_line(build.context, pattern):
            details[key] = CENSOR_DETAIL
    return details, unknown


def _has_line(text: str, pattern: str) -> bool:
    """A censor's line: an action, the pattern, then the dash before the reason or the end of
    the line (so a pattern that begins another censor's pattern is not found in that one)."""
    found = re.search(r"\b[A-Z]+: " + re.escape(pattern) + r"(?= — |$)", text, re.MULTILINE)
    return found is not None


@dataclass(frozen=True)
class BuildOutcome:
    """One question at one budget."""

    agent: str
    question: str
    category: str
    budget: int
    expected: int
    found: int  # expected memories in the context, at any detail
    found_summary: int  # ... at summary detail or more (not only a one-line micro)
    items: int  # memories in the context (flexible items and censors)
    censors_expected: int
    censors_found: int
    forbidden: tuple[str, ...]  # forbidden memories in the context
    missed: tuple[str, ...]
    used: int
    recount: int


def outcome(
    agent: str,
    question: QuestionSpec,
    budget: int,
    details: Mapping[str, str],
    kinds: Mapping[str, str],
    tokens: tuple[int, int],
    unknown_items: int = 0,
) -> BuildOutcome:
    """Compare what the build included with what the question expects and forbids; `tokens`
    is (totals.used, a recount of the text)."""
    expected = list(dict.fromkeys(question.expected))
    found = [key for key in expected if key in details]
    censors = [key for key in expected if kinds.get(key) == "censor"]
    return BuildOutcome(
        agent=agent,
        question=question.id,
        category=question.category,
        budget=budget,
        expected=len(expected),
        found=len(found),
        found_summary=sum(1 for key in found if details[key] != "micro"),
        items=len(details) + unknown_items,
        censors_expected=len(censors),
        censors_found=sum(1 for key in censors if key in details),
        forbidden=tuple(key for key in dict.fromkeys(question.forbidden) if key in details),
        missed=tuple(key for key in expected if key not in details),
        used=tokens[0],
        recount=tokens[1],
    )


@dataclass(frozen=True)
class Scores:
    """Means over the builds of one budget (and one category, or all)."""

    questions: int
    recall: float  # mean share of expected memories included, at any detail
    recall_summary: float  # ... at summary detail or more
    precision: float  # mean share of included memories that are expected
    censor_recall: float | None  # expected censors included / expected censors (pooled)
    censors_expected: int
    forbidden_included: int  # forbidden memories included, summed over the builds
    items_mean: float
    utilization: float  # mean tokens used / budget
    overflows: int  # builds over budget, by totals.used or by a recount of the text


def _mean(values: Sequence[float]) -> float:
    return round(sum(values) / len(values), 4) if values else 0.0


def scores(rows: Sequence[BuildOutcome]) -> Scores:
    """The means of some builds; questions without expected memories count only in precision
    and forbidden, builds with nothing included count in recall only."""
    with_expected = [r for r in rows if r.expected]
    censors_expected = sum(r.censors_expected for r in rows)
    censors_found = sum(r.censors_found for r in rows)
    return Scores(
        questions=len(rows),
        recall=_mean([r.found / r.expected for r in with_expected]),
        recall_summary=_mean([r.found_summary / r.expected for r in with_expected]),
        precision=_mean([r.found / r.items for r in rows if r.items]),
        censor_recall=round(censors_found / censors_expected, 4) if censors_expected else None,
        censors_expected=censors_expected,
        forbidden_included=sum(len(r.forbidden) for r in rows),
        items_mean=_mean([float(r.items) for r in rows]),
        utilization=_mean([r.used / r.budget for r in rows]),
        overflows=sum(1 for r in rows if max(r.used, r.recount) > r.budget),
    )


def summarise(outcomes: Sequence[BuildOutcome]) -> dict[int, dict[str, Scores]]:
    """Per budget: the scores of every category (sorted by name), then "overall"."""
    result: dict[int, dict[str, Scores]] = {}
    for budget in sorted({o.budget for o in outcomes}):
        rows = [o for o in outcomes if o.budget == budget]
        by_category = {
            name: scores([o for o in rows if o.category == name])
            for name in sorted({o.category for o in rows})
        }
        result[budget] = {**by_category, OVERALL: scores(rows)}
    return result
