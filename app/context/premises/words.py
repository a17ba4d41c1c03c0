"""The words the premise check knows: forms of irregular verbs, events said in other words,
and the words that say nothing about an event. Plain data and pure functions (the constraints
step reads texts' content words with them too)."""

import functools
import re

# Irregular past forms and participles -> the verb (a premise says "ran", a memory "run").
IRREGULAR: dict[str, str] = {
    "went": "go", "gone": "go", "goes": "go", "ran": "run", "broke": "break",
    "broken": "break", "bought": "buy", "brought": "bring", "built": "build",
    "came": "come", "did": "do", "done": "do", "drew": "draw", "drawn": "draw",
    "drove": "drive", "driven": "drive", "ate": "eat", "eaten": "eat", "fell": "fall",
    "fallen": "fall", "felt": "feel", "found": "find", "flew": "fly", "flown": "fly",
    "forgot": "forget", "forgotten": "forget", "froze": "freeze", "frozen": "freeze",
    "got": "get", "gotten": "get", "gave": "give", "given": "give", "grew": "grow",
    "grown": "grow", "had": "have", "has": "have", "heard": "hear", "held": "hold",
    "hid": "hide", "hidden": "hide", "hit": "hit", "hurt": "hurt", "kept": "keep",
    "knew": "know", "known": "know", "led": "lead", "left": "leave", "lent": "lend",
    "lost": "lose", "made": "make", "meant": "mean", "met": "meet", "paid": "pay",
    "quit": "quit", "read": "read", "rode": "ride", "ridden": "ride", "rang": "ring",
    "rose": "rise", "risen": "rise", "said": "say", "saw": "see", "seen": "see",
    "sold": "sell", "sent": "send", "shot": "shoot", "shut": "shut", "sang": "sing",
    "sung": "sing", "sat": "sit", "slept": "sleep", "spoke": "speak", "spoken": "speak",
    "spent": "spend", "stood": "stand", "stole": "steal", "stolen": "steal",
    "swam": "swim", "swum": "swim", "took": "take", "taken": "take", "taught": "teach",
    "told": "tell", "thought": "think", "threw": "throw", "thrown": "throw",
    "understood": "understand", "woke": "wake", "woken": "wake", "wore": "wear",
    "worn": "wear", "won": "win", "wrote": "write", "written": "write", "began": "begin",
    "begun": "begin", "became": "become", "blew": "blow", "blown": "blow",
    "caught": "catch", "chose": "choose", "chosen": "choose", "dug": "dig",
    "fought": "fight", "forgave": "forgive", "hung": "hang", "laid": "lay", "lit": "light",
    "overslept": "oversleep", "rebuilt": "rebuild", "shook": "shake", "shaken": "shake",
    "shrank": "shrink", "sank": "sink", "sunk": "sink", "slid": "slide", "spun": "spin",
    "split": "split", "spread": "spread", "struck": "strike", "swept": "sweep",
    "tore": "tear", "torn": "tear", "withdrew": "withdraw", "withdrawn": "withdraw",
    "died": "die", "dies": "die", "dying": "die",
}  # fmt: skip
PAST: dict[str, str] = {base: past for past, base in reversed(IRREGULAR.items())} | {
    "go": "went", "run": "ran", "do": "did", "have": "had", "get": "got", "say": "said",
    "make": "made", "come": "came", "take": "took", "see": "saw", "win": "won",
    "lose": "lost", "leave": "left", "break": "broke", "buy": "bought", "read": "read",
    "hurt": "hurt", "quit": "quit", "hit": "hit", "shut": "shut", "split": "split",
}  # fmt: skip

# An event said in other words: a memory of an "outage" records that something "crashed".
# Only what the words mean in nearly every use: a loose group would hide false premises.
_GROUPS = (
    ("crash", "outage", "down", "downtime", "fail", "failure", "die", "offline", "unavailable"),
    ("break", "broken"),
    ("deprecat", "sunset", "retire", "removal"),
    ("delete", "deletion", "remove", "removal", "erase", "wipe", "drop"),
    ("migrat", "move", "switch"),
    ("rollback", "revert", "roll"),
    ("upgrade", "update", "bump"),
    ("launch", "release", "ship", "deploy", "rollout"),
    ("leak", "breach", "expose"),
    ("hurt", "injur", "injury", "wound"),
    ("quit", "resign", "leave"),
    ("buy", "purchase"),
    ("marry", "married", "marriage", "wedding", "wed"),
    ("adopt", "adoption"),
    ("win", "victory"),
    ("finish", "complete", "completion"),
    ("start", "begin", "launch"),
    ("join", "member", "membership"),
    ("visit", "trip", "travel"),
    ("paint", "painting"),
    ("camp", "camping"),
)

STOP = frozenset((
    "a", "an", "the", "this", "that", "these", "those", "some", "any", "all", "each", "every",
    "no", "its", "it", "it's", "his", "her", "hers", "their", "theirs", "our", "ours", "my",
    "mine", "your", "yours", "me", "him", "them", "us", "i", "we", "you", "he", "she", "they",
    "who", "whom", "whose", "which", "what", "to", "of", "in", "on", "at", "for", "with",
    "from", "by", "about", "as", "into", "onto", "over", "under", "after", "before", "since",
    "during", "through", "and", "or", "but", "so", "than", "then", "also", "too", "very",
    "really", "just", "still", "again", "ever", "even", "only", "not", "there", "here", "up",
    "out", "off", "together", "around", "back", "away", "between", "own", "much", "many",
    "how", "why", "when", "where", "while", "if", "because", "against", "within", "across",
    "along", "among", "toward", "towards", "upon", "via", "per", "like", "once"
))  # fmt: skip
# Verbs that say nothing of what happened: "When did Caroline go to the support group?" rests
# on the support group, not on going.
GENERIC = frozenset((
    "be", "is", "are", "was", "were", "been", "being", "am", "do", "does", "did", "done",
    "have", "has", "had", "get", "gets", "got", "make", "made", "take", "took", "come", "came",
    "go", "goes", "went", "gone", "say", "said", "tell", "told", "feel", "felt", "think",
    "thought", "know", "knew", "want", "wanted", "need", "needed", "like", "liked", "see",
    "saw", "seen", "happen", "happened", "use", "used", "try", "tried", "look", "looked", "let",
    "put", "give", "gave", "keep", "kept", "become", "became", "seem", "seemed", "mention",
    "mentioned", "decide", "decided", "plan", "planned", "manage", "managed", "choose", "chose",
    "chosen", "describe", "described", "find", "finds"
))  # fmt: skip
TIME = frozenset((
    "today", "yesterday", "tomorrow", "tonight", "last", "next", "week", "weeks", "month",
    "months", "year", "years", "day", "days", "ago", "recently", "recent", "first", "time",
    "times", "morning", "evening", "night", "weekend", "january", "february", "march", "april",
    "may", "june", "july", "august", "september", "october", "november", "december", "monday",
    "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"
))  # fmt: skip
WORD = re.compile(r"[a-z0-9]+")
NEGATIONS = frozenset(("not", "never", "no", "without", "didn", "wasn", "hasn", "haven", "isn",
                       "nothing", "none", "nobody"))  # fmt: skip


@functools.lru_cache(maxsize=65536)  # a memory's words come again and again
def stem(word: str) -> str:
    """A word's base, enough to tell that "crashed", "crashes" and "crash" are one word, and
    "hid" and "hide", "hoodies" and "hoodie", "studied" and "study"."""
    word = word.lower().removesuffix("'s")
    return _regular(IRREGULAR.get(word, word))


def _regular(word: str) -> str:
    for suffix, replacement in (("ation", "at"), ("ies", "i"), ("ied", "i"), ("ing", ""),
                                ("ed", ""), ("es", ""), ("s", "")):  # fmt: skip
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)] + replacement
            break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
        word = word[:-1]  # "stopped" -> "stopp" -> "stop"
    if len(word) > 3 and word.endswith("y") and word[-2] not in "aeiou":
        word = word[:-1] + "i"  # "study" -> "studi", as "studies" and "studied"
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


@functools.lru_cache(maxsize=4096)
def concept(word: str) -> frozenset[str]:
    """The stems that say a word in a memory: its own, and those of the other words of its
    event ("crash": "outage", "fail", "down" …)."""
    base = stem(word)
    bases = {base}
    for group in _GROUPS:
        members = {stem(member) for member in group}
        if base in members:
            bases |= members
    return frozenset(bases)


def stems(text: str) -> list[str]:
    """A text's words as stems, in order."""
    return [stem(word) for word in WORD.findall(text.lower())]


def content_words(text: str) -> list[str]:
    """The words of a phrase that say what it is about, in order, once each."""
    seen: list[str] = []
    for word in WORD.findall(text.lower().replace("'s", "")):
        if word in STOP or word in GENERIC or word in TIME or word.isdigit() or len(word) < 2:
            continue
        if word not in seen:
            seen.append(word)
    return seen


@functools.lru_cache(maxsize=4096)  # the same memories are a build's hits build after build
def content_stems(text: str) -> frozenset[str]:
    """The stems of a text's content words ("don't" is "do not": none)."""
    said = text.lower().replace("\u2019", "'").replace("n't", " not")
    return frozenset(stem(word) for word in content_words(said))


def past_tense(verb: str) -> str:
    """ "crash" -> "crashed", "go" -> "went": how a premise is said back in the note."""
    lower = verb.lower()
    if lower in PAST:
        return PAST[lower]
    if lower.endswith("e"):
        return lower + "d"
    if lower.endswith("y") and len(lower) > 2 and lower[-2] not in "aeiou":
        return lower[:-1] + "ied"
    return lower + "ed"
