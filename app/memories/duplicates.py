"""Whether a written fact says again what an active fact already says: then it confirms that
fact instead of becoming a second copy of it. Pure, except for the repository's lookup."""

import re

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_NUMBER = re.compile(r"\d")
# Facts this alike in their words are the same fact; a different number never is.
NEAR_DUPLICATE = 0.9


def words(text: str) -> frozenset[str]:
    """The text's words, lower-cased, without punctuation."""
    return frozenset(_WORD.findall(text.lower()))


def same_fact(written: str, existing: str) -> bool:
    """Exactly the same words, or nearly (Jaccard at least NEAR_DUPLICATE) with the same
    numbers: "Redis adds a separate service." and "redis adds a separate service" are one
    fact; "p95 is 20 ms" and "p95 is 25 ms" are two."""
    mine, theirs = words(written), words(existing)
    if not mine or not theirs:
        return False
    if mine == theirs:
        return True
    numbers = {w for w in mine if _NUMBER.search(w)}
    if numbers != {w for w in theirs if _NUMBER.search(w)}:
        return False
    return len(mine & theirs) / len(mine | theirs) >= NEAR_DUPLICATE
