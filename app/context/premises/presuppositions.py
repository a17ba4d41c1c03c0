"""What an input takes for granted, found by rules (no LLM): "Why did the Kafka cluster
crash?" rests on "the Kafka cluster crashed". Pure.

The forms: a question "why / when / how / where + did (does, has, was …) + subject + event",
a clause "after / since / before / because + subject + past verb", and a definite description
with an event noun, "the crash of the Kafka cluster", "the Kafka outage". A question whose verb
says only that its subject took place ("How did the crash of the Kafka cluster happen?", "When
did the Kafka outage begin?") rests on that subject, an event named by a noun phrase. Each
premise keeps its subject's words (what memories must be about) and its event's words (what
they must say).
"""

import re
from dataclasses import dataclass

from app.context.premises.words import (
    GENERIC,
    IRREGULAR,
    STOP,
    TIME,
    content_words,
    past_tense,
    stem,
)

MAX_PREMISES = 3
_QUESTION = re.compile(
    r"\b(why|when|how|where)\s+(did|does|do|has|have|had|was|were)\s+(.+)$",
    re.IGNORECASE,
)
_CLAUSE = re.compile(r"\b(?:after|since|before|because|now that|ever since)\s+(.+)$", re.IGNORECASE)
EVENT_NOUNS = (
    "crash|outage|failure|incident|breach|leak|rollback|migration|deprecation|deletion|"
    "shutdown|downtime|breakdown|bankruptcy|layoffs?|resignation|divorce|accident|injury"
)
_DESCRIPTION = re.compile(
    rf"\bthe\s+((?:[\w-]+\s+){{0,3}}?)({EVENT_NOUNS})\b(?:\s+of\s+((?:the\s+)?[\w-]+(?:\s+[\w-]+){{0,2}}))?",
    re.IGNORECASE,
)
_SENTENCES = re.compile(r"[^.?!\n;]+[.?!]?")
_TOKEN = re.compile(r"[\w'-]+")
# "we", "I", "you": the agent and its user, whom every memory is about; "it", "they": someone
# the words do not name, so nothing can be checked.
PRONOUNS = frozenset({"i", "we", "you"})
_UNRESOLVED = frozenset({"he", "she", "it", "they", "this", "that", "there"})
_AUXILIARIES = frozenset({"was", "were", "got", "had", "has", "have", "been"})
_DETERMINERS = frozenset({"the", "a", "an", "our", "my", "your", "their", "his", "her", "its",
                          "this", "that", "these", "those"})  # fmt: skip
_PARTICIPLE_END = ("ed", "en")
_ADVERBS = frozenset({"first", "last", "ever", "actually", "really", "finally", "recently",
                      "originally", "initially", "also", "still", "just", "even", "never",
                      "always", "usually", "eventually", "suddenly", "once"})  # fmt: skip
_STATES = frozenset({"down", "offline", "broken", "slow", "unavailable", "late", "lost",
                     "fired", "sick", "closed", "cancelled", "canceled"})  # fmt: skip
# Verbs that say only that their subject took place: the subject is an event ("the fight
# between Tim and John happened"), and the question rests on it.
_OCCUR = frozenset(stem(verb) for verb in ("happen", "occur", "unfold", "arise", "transpire"))
_OCCUR_PHRASES = frozenset(
    (stem(verb), stem(word)) for verb, word in (("take", "place"), ("come", "about"))
)
# Verbs said of an event's course and of things alike ("the migration began", "the server
# started"): the subject is the premise only when its head is an event noun.
_PHASES = frozenset(stem(verb) for verb in ("start", "begin", "end", "finish", "stop"))
# Where a noun phrase's head ends and the words of whose event it is begin.
_PREPOSITIONS = frozenset({"of", "to", "in", "at", "on", "between", "with", "from", "for", "by",
                           "during", "against", "over"})  # fmt: skip


@dataclass(frozen=True)
class Premise:
    """A presupposition: its words as said back ("the Kafka cluster crashed"), whether that is
    a clause ("that …") or a noun phrase, its subject's words and its event's words."""

    text: str
    subject: tuple[str, ...]
    event: tuple[str, ...]
    names: tuple[str, ...] = ()  # the subject's proper names: a memory about it holds them
    clause: bool = True
    # The word that says what happened, the verb or the event noun ("crashed", "outage"): the
    # event's first word, unless its verb says nothing ("went to the support group": none).
    head: str = ""

    @property
    def personal(self) -> bool:
        """The subject is the agent or its user ("we", "I"): every memory is about it."""
        return not self.subject


def _subject_end(words: list[str], participle: bool) -> int:
    """Where the subject ends among the words after the auxiliary (the verb's index): a
    pronoun, a run of names (with "and", and a possessive's noun), or a determiner's phrase up
    to its verb ("the deploy of the billing service | fail")."""
    if words[0].lower() in PRONOUNS:
        return 1
    if words[0][0].isupper() and words[0].lower() not in _DETERMINERS:
        end = 1
        while end < len(words) and (
            words[end][0].isupper()
            or (words[end] == "and" and end + 1 < len(words) and words[end + 1][0].isupper())
            or (words[end - 1].endswith("'s") and words[end].lower() not in STOP)
        ):
            end += 1
        return end
    for end in range(1, len(words)):  # "the fight between Tim and John | start"
        kind = _occurrence(words[end], words[end + 1 :])
        if kind is not None and words[end - 1].lower() not in _DETERMINERS | {"of"}:
            return end
    for end in range(1, len(words)):
        word, before = words[end].lower(), words[end - 1].lower()
        if word == "of" or before in _DETERMINERS or before == "of":
            continue  # the noun phrase goes on
        if participle:
            if word.endswith(_PARTICIPLE_END) or word in IRREGULAR or word in _STATES:
                return end
        elif end + 1 == len(words) or words[end + 1].lower() in (STOP - {"of"}) | TIME:
            return end
    return len(words) - 1


def _question(asked: str, auxiliary: str, rest: str) -> Premise | None:
    words = _TOKEN.findall(rest.split(",")[0])
    if len(words) < 2 or words[0].lower() in _UNRESOLVED:
        return None
    aux = auxiliary.lower()
    if aux in ("do", "does") and (asked.lower() == "how" or words[0].lower() in PRONOUNS):
        return None  # "How does X work?", "When do I restart it?": a way, not an event
    end = _subject_end(words, participle=aux not in ("did", "does", "do"))
    if end >= len(words):
        return None
    subject, adverb = words[:end], []
    if words[end].lower() in _ADVERBS and end + 1 < len(words):
        adverb, end = [words[end]], end + 1  # "When did Joanna first watch …"
    verb, tail = words[end], words[end + 1 :]
    if (occurs := _occurrence(verb, tail)) is not None:
        # "How did the crash of the Kafka cluster happen?": the crash of the Kafka cluster
        event = _event_phrase(subject, any_head=occurs)
        if event is not None or occurs:
            return event
    if aux == "did":
        said = [*subject, *adverb, past_tense(verb), *tail]
    elif aux == "does":
        said = [
            *subject,
            *adverb,
            verb + ("es" if verb.endswith(("s", "sh", "ch")) else "s"),
            *tail,
        ]
    elif aux == "do":
        said = [*subject, *adverb, verb, *tail]
    else:
        said = [*subject, aux, *adverb, verb, *tail]
    return _premise(" ".join(said), subject, [verb, *tail])


def _occurrence(verb: str, tail: list[str]) -> bool | None:
    """Whether the verb says only that its subject took place (True: "happen", "take place"),
    or that its course began or ended (False: "start", "end"), with nothing after it but time
    words; None otherwise ("When did Caroline start the painting class?")."""
    rest = [word.lower() for word in tail]
    if rest and (stem(verb), stem(rest[0])) in _OCCUR_PHRASES:
        occurs: bool | None = True
        rest = rest[1:]
    else:
        occurs = True if stem(verb) in _OCCUR else False if stem(verb) in _PHASES else None
    return None if content_words(" ".join(rest)) else occurs


def _event_phrase(words: list[str], any_head: bool) -> Premise | None:
    """A noun phrase that names an event, as the premise: its head noun is the event, the other
    words say whose ("the crash of the Kafka cluster", "the Kafka outage", "Caroline's
    adoption"). Unless `any_head`, only an event noun is a head."""
    cut = next((i for i, word in enumerate(words) if word.lower() in _PREPOSITIONS), len(words))
    head = [word for word in words[:cut] if word.lower() not in _DETERMINERS]
    if not head or not (any_head or re.fullmatch(EVENT_NOUNS, head[-1].lower())):
        return None
    subject = [*head[:-1], *words[cut + 1 :]]
    if not content_words(" ".join(subject)):
        return None  # "the outage": which one, the words do not say
    return _premise(" ".join(words), subject, [head[-1]], clause=False)


def _clause(rest: str) -> Premise | None:
    """ "since the v1 API was deprecated": a subject, then a past verb or participle."""
    words = _TOKEN.findall(rest.split(",")[0])
    if not words or words[0].lower() in _UNRESOLVED:
        return None
    for end in range(1, min(len(words), 8)):
        word = words[end].lower()
        if word in _AUXILIARIES:
            continue
        if word.endswith("ed") or IRREGULAR.get(word, "be") not in ("be", "have", "do"):
            subject = [w for w in words[:end] if w.lower() not in _AUXILIARIES]
            said = words[: end + 6]
            return _premise(" ".join(said), subject, said[end:])
        if word in STOP - {"of", "the"}:
            return None
    return None


def _description(match: re.Match[str]) -> Premise | None:
    """ "the Kafka outage", "the crash of the Kafka cluster": whose event, the other words say."""
    modifiers = (match.group(1) or "").split()
    while any(word.lower() in STOP for word in modifiers):
        modifiers = modifiers[1:]  # "the team after the outage": the team is not the outage's
    whose, text = (match.group(3) or "").split(), match.group(0)
    for at, word in enumerate(whose):
        # "the crash of the Kafka cluster | happen", "… | last week": the next words' own
        if at and (word.lower() in STOP | GENERIC | TIME or stem(word) in _OCCUR):
            whose = whose[:at]
            text = match.string[match.start() : match.start(3)] + " ".join(whose)
            break
    subject = [*modifiers, *whose]
    if not content_words(" ".join(subject)):
        return None  # "the outage": which one, the words do not say
    return _premise(text, subject, [match.group(2)], clause=False)


def _premise(
    text: str, subject: list[str], event: list[str], clause: bool = True
) -> Premise | None:
    subject_words = tuple(content_words(" ".join(subject)))
    event_words = tuple(w for w in content_words(" ".join(event)) if w not in subject_words)
    if not event_words:
        return None
    names = tuple(
        w.lower().removesuffix("'s")
        for w in subject
        if w[0].isupper() and w.lower() not in PRONOUNS | _DETERMINERS
    )
    lead = content_words(event[0])
    head = event_words[0] if lead and lead[0] == event_words[0] else ""
    return Premise(" ".join(text.split()), subject_words, event_words, names, clause, head)


def _in_sentence(sentence: str) -> list[Premise]:
    found: list[Premise | None] = []
    if (question := _QUESTION.search(sentence)) is not None:
        found.append(_question(*question.groups()))
    elif (clause := _CLAUSE.search(sentence)) is not None:
        found.append(_clause(clause.group(1)))
    if not any(found):
        found.extend(_description(m) for m in _DESCRIPTION.finditer(sentence))
    return [premise for premise in found if premise is not None]


def presuppositions(text: str) -> list[Premise]:
    """The premises of an input, in order, at most `MAX_PREMISES`."""
    premises: list[Premise] = []
    text = text[:2000].replace("\u2019", "'")  # a typographic apostrophe
    for sentence in _SENTENCES.findall(text):
        for premise in _in_sentence(sentence.strip().rstrip("?.!")):
            if premise not in premises:
                premises.append(premise)
    return premises[:MAX_PREMISES]
