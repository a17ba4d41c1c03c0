"""The premise check: does the agent's memory bear out what the input takes for granted?

The input's presuppositions (`presuppositions.py`) are held against the memories the build's
search found already, by their words (forms and the other words of an event,
`words.py`) and their similarity to the input. A premise is

- supported, when a memory about its subject says its event and every word of the event is in
  some memory found, or a memory that says its event is at least
  `CE_CONTEXT__PREMISE_SUPPORT_SIMILARITY` similar to the input (a paraphrase: "a talk at the
  school" for "a speech at the school"; of a premise about "we", the memory must hold its verb,
  "we migrated to Postgres" for "we moved to Postgres"): nothing is said. Similarity alone bears
  out nothing: "We use Redis" is close to "Since Redis was deprecated, …";
- contradicted, when the memories that say it say it did not happen ("never crashed"), or
  when the only fact that says it is one the search leaves out: invalidated or superseded
  (read by one statement, only for a premise the search did not bear out);
- unsupported, when memories are about its subject but none says its event, or a word of its
  event is in none of the memories found (the search looked for every word of the input).

A premise whose subject no memory is about is not judged: the agent knows nothing either way.
Each flagged premise is a line of the context's note, inside the build's budget.
"""

import functools
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from sqlalchemy.ext.asyncio import AsyncSession

from app.context.premises.presuppositions import Premise, presuppositions
from app.context.premises.repository import PremiseRepository, RetiredFact
from app.context.premises.words import NEGATIONS, WORD, concept, stem
from app.context.retrieval.search_sql import SearchSpec
from app.context.text.render import SEPARATOR
from app.context.types import Scored
from app.core.context_config import ContextSettings
from app.providers.tokenizer import Tokens

PremiseStatus = Literal["unsupported", "contradicted"]
# What the build's candidates say of a premise besides a flag: they bear it out, or none of
# them is about its subject.
Unflagged = Literal["supported", "unknown"]
CHECKED = 100  # the best-ranked candidates a premise is held against
RELATED_SHOWN = 3  # memories about the subject named for an unsupported premise
NOTE_SHARE = 0.1  # the note takes at most this share of the budget, or is left out
_NEGATION_REACH = 3  # words before the event's word a negation applies to


@dataclass(frozen=True)
class Flagged:
    """A premise the memory does not bear out, the memories that say so, and the note's line."""

    premise: Premise
    status: PremiseStatus
    memory_ids: tuple[uuid.UUID, ...]
    line: str


@dataclass(frozen=True)
class PremiseCheck:
    """The flagged premises of a build, and whether their note is in the context."""

    flagged: tuple[Flagged, ...] = ()
    in_context: bool = False

    def note(self) -> str:
        return "\n".join(flag.line for flag in self.flagged)


def _about(premise: Premise, words: frozenset[str]) -> bool:
    """Whether a memory (its words' stems) is about the premise's subject: it names one of its
    names (one turn of a talk between Tim and John names one of them), else holds half its
    words (every memory is about "we")."""
    if premise.names:
        return any(stem(name) in words for name in premise.names)
    if premise.personal:
        return True
    held = sum(1 for word in premise.subject if concept(word) & words)
    return 2 * held >= len(premise.subject)


def _says(premise: Premise, words: frozenset[str]) -> bool:
    """Whether a memory says the premise's event: one of its words when it has one or two, two
    of up to six, else three, in any form (a long question's words are paraphrased)."""
    held = sum(1 for word in premise.event if concept(word) & words)
    count = len(premise.event)
    return held >= (1 if count <= 2 else 2 if count <= 6 else 3)


def _names_event(premise: Premise, words: frozenset[str]) -> bool:
    """Whether a memory close to the input says what happened in the premise: it says its
    event, or of a premise about "we" (which every memory is about, so the event's other words
    are only what it is about: "we moved to Postgres"), holds its verb in any form."""
    if premise.personal and premise.head:
        return bool(concept(premise.head) & words)
    return _says(premise, words)


def _denies(premise: Premise, raw: Sequence[str], words: Sequence[str]) -> bool:
    """A negation word just before the event's first word: "the cluster has never crashed"
    (`raw`: the memory's words as written, `words`: their stems)."""
    event = concept(premise.event[0])
    at = next((i for i, word in enumerate(words) if word in event), None)
    return at is not None and not NEGATIONS.isdisjoint(raw[max(at - _NEGATION_REACH, 0) : at])


@functools.lru_cache(maxsize=4096)  # the same memories come back build after build
def _read(text: str) -> tuple[tuple[str, ...], tuple[str, ...], frozenset[str]]:
    """A memory's words as written, their stems, and the set of those."""
    raw = tuple(WORD.findall(text.lower()))
    said = tuple(stem(word) for word in raw)
    return raw, said, frozenset(said)


def _unheard(premise: Premise, heard: Sequence[frozenset[str]]) -> bool:
    """Whether a word of the premise's event is in none of the memories found. The search looked
    for every word of the input, so no memory of the agent is likely to hold it: "When did
    Melanie paint a lighthouse?" of a Melanie who painted sunrises."""
    return any(all(concept(word).isdisjoint(words) for words in heard) for word in premise.event)


def _quoted(text: str) -> str:
    line = " ".join(text.split()).rstrip(".")
    return line if len(line) <= 160 else line[:157].rstrip() + "…"


def _said(premise: Premise) -> str:
    return f"that {premise.text}" if premise.clause else premise.text


def judge(premise: Premise, ranked: Sequence[Scored], similar: float) -> Flagged | Unflagged:
    """A premise against the build's candidates: a flag when they deny it or are about its
    subject without recording it; else whether they bear it out or know nothing of it."""
    about, saying, close, heard = [], [], False, []
    for scored in ranked[:CHECKED]:
        candidate = scored.candidate
        text = candidate.summary if candidate.micro in candidate.summary else candidate.micro
        if text is not candidate.summary:
            text = f"{text}\n{candidate.summary}"
        raw, said, words = _read(f"{text}\n{candidate.excerpt or ''}")
        heard.append(words)
        if _about(premise, words):
            about.append(candidate.memory_id)
            says = _says(premise, words)
            # Close in meaning stands in for the event's other words, never for what happened:
            # "We use Redis" is close to "Since Redis was deprecated, …" and records no
            # deprecation.
            near = (candidate.semantic or 0.0) >= similar and _names_event(premise, words)
            if says or near:
                denied = _denies(premise, raw, said)
                close = close or (near and not denied)
                if says:
                    saying.append((candidate.memory_id, denied, candidate.summary))
    if saying and all(denied for _id, denied, _text in saying):
        line = (
            f"Note: memory says otherwise of the premise {_said(premise)}: {_quoted(saying[0][2])}"
        )
        return Flagged(premise, "contradicted", tuple(i for i, _d, _t in saying), line + ".")
    if close or (saying and not _unheard(premise, heard)):
        return "supported"
    if not about:
        return "unknown"
    line = f"Note: no memory records {_said(premise)}."
    return Flagged(premise, "unsupported", tuple(about[:RELATED_SHOWN]), line)


def retired_flag(premise: Premise, facts: Sequence[RetiredFact]) -> Flagged | None:
    """The premise rests on an invalidated or superseded fact that says it, if one does."""
    for fact in facts:
        _raw, _said, words = _read(fact.text)
        if not (_about(premise, words) and _says(premise, words)):
            continue
        ids = (fact.memory_id,) + ((fact.successor_id,) if fact.successor_id else ())
        if fact.state == "superseded":
            line = f"Note: the premise rests on a superseded fact: {_quoted(fact.text)}"
            if fact.successor:
                line += f" (now: {_quoted(fact.successor)})"
        else:
            line = f"Note: the premise rests on a fact marked invalid: {_quoted(fact.text)}"
        return Flagged(premise, "contradicted", ids, line + ".")
    return None


async def check(
    session: AsyncSession,
    settings: ContextSettings,
    spec: SearchSpec,
    text: str,
    ranked: Sequence[Scored],
) -> PremiseCheck:
    """The input's premises held against the build's candidates; those the candidates do not
    bear out, against the agent's invalidated and superseded facts (one statement)."""
    flagged: list[Flagged] = []
    for premise in presuppositions(text) if settings.premise_check else ():
        verdict = judge(premise, ranked, settings.premise_support_similarity)
        if verdict == "supported":
            continue
        flag = verdict if isinstance(verdict, Flagged) else None
        if (flag is None or flag.status == "unsupported") and "fact" in spec.kinds:
            words = [*premise.subject, *premise.event]
            facts = await PremiseRepository(session).retired_facts(
                spec.agent_id, words, spec.metadata
            )
            flag = retired_flag(premise, facts) or flag
        if flag is not None:
            flagged.append(flag)
    return PremiseCheck(tuple(flagged))


def reserve(tokens: Tokens, premises: PremiseCheck, total: int) -> int:
    """The tokens the note keeps back from the memories: 0 without one, or when it would take
    more than `NOTE_SHARE` of the budget (it is then left out)."""
    if not premises.flagged:
        return 0
    needed = tokens.count(premises.note()) + tokens.count(SEPARATOR)
    return needed if needed <= total * NOTE_SHARE else 0


def attach(
    tokens: Tokens, context: str, count: int, premises: PremiseCheck, total: int
) -> tuple[str, int, PremiseCheck]:
    """The context with the note at its end, recounted whole, when it fits `total`; else the
    context as it was (the manifest then says the note is not in it)."""
    if reserve(tokens, premises, total) == 0:
        return context, count, premises
    text = SEPARATOR.join(part for part in (context, premises.note()) if part)
    noted = tokens.count(text)
    if noted > total:
        return context, count, premises
    return text, noted, replace(premises, in_context=True)


def read(premises: PremiseCheck | None) -> list[dict[str, object]]:
    """The manifest's `premises`."""
    if premises is None:
        return []
    return [
        {
            "text": flag.premise.text,
            "status": flag.status,
            "memory_ids": list(flag.memory_ids),
            "note": flag.line,
            "in_context": premises.in_context,
        }
        for flag in premises.flagged
    ]
