"""Which loaded memories an LLM reply refers to, worked out from the reply's words."""

import re
import uuid
from collections.abc import Sequence

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_STOPWORDS = frozenset(
    (  # noqa: SIM905 - a word list reads best as one string
        "about after again also because been before being between both could does doing down "
        "during each from further have having here into more most other over same should some "
        "such than that their them then there these they this those through under until very "
        "were what when where which while will with would your yours decision outcome "
        "confidence reasons pending success failure partial"
    ).split()
)


def keywords(text: str) -> set[str]:
    """Distinctive words of a text: four letters or more, not common words."""
    return {
        w for w in (m.lower() for m in _WORD.findall(text)) if len(w) >= 4 and w not in _STOPWORDS
    }


def referenced(reply: str, items: Sequence[tuple[uuid.UUID, str]]) -> list[uuid.UUID]:
    """Items whose id appears in the reply, or that share two keywords with it (one if short)."""
    reply_words = keywords(reply)
    lowered = reply.lower()
    found = []
    for memory_id, text in items:
        words = keywords(text)
        needed = 2 if len(words) >= 4 else 1
        if str(memory_id) in lowered or len(words & reply_words) >= needed:
            found.append(memory_id)
    return found
