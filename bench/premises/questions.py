"""The questions of the premise benchmark: LoCoMo's own, and two sets made false from them.

- "false event": a question of another conversation whose premise's subject is one speaker
  ("When did Melanie run a charity race?") asked of this conversation's first speaker, when none
  of its event's words (in any form, `app.context.premises.words`) is in any turn of this
  conversation: an event that never happened there, told of a person who is there.
- "false object": a question of this conversation whose event has two words or more, its last
  one replaced by an event word of another conversation that no turn here holds ("When did
  Melanie paint a sunrise?" -> "… paint a lighthouse?"): half true, the harder case.

LoCoMo's adversarial questions (category 5: the event of one speaker asked of the other) are
kept apart: their premise is often half true too.
"""

import re
from dataclasses import dataclass

from app.context.premises.presuppositions import Premise, presuppositions
from app.context.premises.words import concept, stems
from bench.common.locomo import Conversation

PER_CONVERSATION = 60
GROUPS = ("true", "adversarial", "false event", "false object")


@dataclass(frozen=True)
class Asked:
    """A question to build a context for, and which group it is in (`GROUPS`)."""

    conversation: Conversation
    text: str
    group: str


def _about_one_speaker(text: str, speakers: tuple[str, ...]) -> tuple[str, Premise] | None:
    """The speaker a question's one premise is about, if it is about one of them alone."""
    found = presuppositions(text)
    if len(found) != 1 or len(found[0].names) != 1:
        return None
    speaker = next((s for s in speakers if s.lower() == found[0].names[0]), None)
    return (speaker, found[0]) if speaker else None


def _sample(texts: list[str]) -> list[str]:
    step = max(len(texts) // PER_CONVERSATION, 1)
    return texts[::step][:PER_CONVERSATION]


def _absent(premise: Premise, said: frozenset[str]) -> bool:
    return not any(concept(word) & said for word in premise.event)


def made_false(conversations: list[Conversation]) -> list[Asked]:
    """Both false sets, at most `PER_CONVERSATION` of each for each conversation."""
    made: list[Asked] = []
    for conversation in conversations:
        said = frozenset(stems("\n".join(turn.render() for turn in conversation.turns)))
        target = conversation.speakers[0]
        events: list[str] = []
        nouns: set[str] = set()
        for other in conversations:
            if other is conversation:
                continue
            for question in other.questions:
                found = _about_one_speaker(question.text, other.speakers)
                if found is None or question.category == 5:
                    continue
                speaker, premise = found
                nouns.update(w for w in premise.event if not concept(w) & said)
                if _absent(premise, said):
                    events.append(question.text.replace(speaker, target))
        made += [Asked(conversation, text, "false event") for text in _sample(events)]
        pool = sorted(nouns)
        objects = []
        for question in conversation.questions:
            found = _about_one_speaker(question.text, conversation.speakers)
            if found is None or question.category == 5 or len(found[1].event) < 2 or not pool:
                continue
            last = found[1].event[-1]
            swap = pool[len(question.text) * 7919 % len(pool)]
            text = re.sub(rf"\b{re.escape(last)}\b", swap, question.text, count=1, flags=re.I)
            if text != question.text:
                objects.append(text)
        made += [Asked(conversation, text, "false object") for text in _sample(objects)]
    return made
