"""The learnings step of a build with a session: seed 001's "Past Learnings", in the learnings'
share of the window. Pure.

A learning is what the agent took from what it did: a decision whose outcome has been recorded
(reviewed), shown as its lesson (the decision, its outcome and confidence, and the outcome's
notes), or a procedure. They come from the build's own candidates, ranked and gated as the
layers' are (no search and no model call of their own): best first, each as its lesson when it
fits, else as its one-liner, near-duplicates of one already in left to the layers. The layers
then fill without them, so no memory is shown twice. The section goes after the memory context;
what it adds to the whole text, counted with the target model's tokenizer, stays within its
budget, and what it leaves goes to the history.
"""

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from app.context.text.render import append_section
from app.context.types import Admission, Candidate, Detail, Included, Scored
from app.memories.lifecycle import REVIEWED_DECISION
from app.providers.tokenizer import Tokens

LEARNINGS_HEADER = "## Past Learnings"
_MIN_ROOM = 4  # no lesson line is shorter: stop looking once less than this is left


def is_learning(candidate: Candidate) -> bool:
    """A procedure, or a decision whose outcome has been recorded."""
    return candidate.kind == "procedure" or (
        candidate.kind == "decision" and candidate.state == REVIEWED_DECISION
    )


def lesson(scored: Scored, detail: Detail, notes: Mapping[uuid.UUID, str]) -> str:
    """A learning's line: at summary detail a decision's summary (decision, outcome,
    confidence, main reason) with its outcome's notes, or a procedure's name and summary; at
    micro detail its one-liner. Multi-line text is indented under its bullet."""
    candidate = scored.candidate
    if detail == "micro":
        text = candidate.micro.strip()
    elif candidate.kind == "procedure":
        summary = candidate.summary.strip()
        text = f"{candidate.title}: {summary}" if candidate.title else summary
    else:
        text = candidate.summary.strip()
        note = notes.get(candidate.memory_id)
        if note and note not in text:  # without reasons, the summary quotes the notes already
            text += f"\nOutcome: {note}"
    return "- " + text.replace("\n", "\n  ")


@dataclass(frozen=True)
class Learnings:
    """The section's budget, its items best first, and the tokens it added to the context
    (counted on the whole text once attached)."""

    budget: int
    items: tuple[Included, ...] = ()
    used: int = 0

    def ids(self) -> frozenset[uuid.UUID]:
        return frozenset(item.scored.candidate.memory_id for item in self.items)


def section(items: Sequence[Included]) -> str:
    """The section's text; empty without items."""
    return "\n".join([LEARNINGS_HEADER, *(item.line for item in items)]) if items else ""


def _duplicate(scored: Scored, chosen: Sequence[Included], threshold: float) -> bool:
    vector = scored.candidate.embedding
    if vector is None:
        return False
    others = [i.scored.candidate.embedding for i in chosen]
    vectors = [v for v in others if v is not None and v.shape == vector.shape]
    return bool(vectors) and float((np.stack(vectors) @ vector).max()) >= threshold


def choose(
    tokens: Tokens,
    ranked: Sequence[Scored],
    admitted: Sequence[Admission | None],
    duplicate_similarity: float,
    budget: int,
    notes: Mapping[uuid.UUID, str],
    limit: int,
) -> Learnings:
    """At most `limit` learnings the gate lets in (`admitted`: its `admissions` of `ranked`),
    best first, within `budget` tokens: each line counted with its newline, the header with its
    line and the blank line before the section."""
    room = budget - tokens.count(LEARNINGS_HEADER) - 2
    chosen: list[Included] = []
    for scored, admission in zip(ranked, admitted, strict=True):
        if room < _MIN_ROOM or len(chosen) >= limit:
            break
        if admission is None or not is_learning(scored.candidate):
            continue
        if _duplicate(scored, chosen, duplicate_similarity):
            continue
        details: tuple[Detail, ...] = ("summary", "micro")
        for detail in details:
            line = lesson(scored, detail, notes)
            cost = tokens.count(line) + 1
            if cost <= room:
                chosen.append(Included(scored, detail, cost, line, admission))
                room -= cost
                break
    return Learnings(budget, tuple(chosen))


def attach(
    tokens: Tokens, context: str, context_tokens: int, learnings: Learnings
) -> tuple[str, int, Learnings]:
    """The context followed by the section, its tokens, and the learnings as shown: while
    what the section adds to the whole text, counted exactly (`render.append_section`: tokens
    do not add up across a join), exceeds its budget, the lowest-scored learning goes."""
    items = list(learnings.items)
    while items:
        text, count = append_section(tokens, context, context_tokens, section(items))
        if count - context_tokens <= learnings.budget:
            return text, count, replace(learnings, items=tuple(items), used=count - context_tokens)
        items.remove(min(items, key=lambda item: item.scored.score))
    return context, context_tokens, replace(learnings, items=(), used=0)
