"""Anchors: the names and rare terms of a text, which tie memories that speak of the same thing.

No model: a word is an anchor when it looks like a name or a technical term, judged by its form
and against a lexicon of common English words (the whole words of the embedding model's
WordPiece vocabulary, read from the installed package) and, for a word written in lower case,
against the words of everyday English (wordfreq's figures, read from the installed package:
a word at least `EVERYDAY_ZIPF` on the Zipf scale, about once in three million words of
general text). What counts:

- a word with letters and digits (`us-east-1`, `v2.3`, `ec2`), or joined by `_`, `.`, `-` or `/`
  around a part that is not a common word (`docker-compose`, `FEATURE_FLAG_X`, `node.js`);
- a word in capitals that is not a common word (`AWS`, `EKS`; not `API`), or with a capital
  inside (`ChromaDB`, `GitHub`);
- a capitalised word that is not a common word (`Redis`, `Kwame`): a common one (`Tim`, `Newton`,
  a sentence's first word) names too many things to tie two memories together;
- a word of four letters or more that is not a common word nor one of its forms, nor an everyday
  one (`pgvector`, `postgres`, `backfill`; not `rewrote`, `expires` or `shard`, which the
  WordPiece vocabulary lacks but any text may use).

Anchors are lower case. How much an anchor ties two memories together depends on how rare it
is among the agent's memories; that is the search's business, not this module's.
"""

import gzip
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import msgpack

from app.providers.local_models import MINILM, PackageFile
from app.providers.packages import package_dir

MAX_ANCHORS = 48  # of one text: a long document keeps its first ones
# A lower-case word this frequent in general English (Zipf: log10 of its uses per billion words)
# is an everyday word, not a name: `rewrote` 2.75, `shard` 3.0; `backfill` 2.2, `postgres` 2.0,
# `sqlite` 2.05, `pgvector` 0. At 3.0 the typed benchmark's precision gains half as much; at
# 2.0 jargon stops tying too, and recall drops (bench/README.md, "Everyday words are no anchors").
EVERYDAY_ZIPF = 2.5
# wordfreq's English list: words by frequency, from Wikipedia, subtitles, news, books, the web.
EVERYDAY_PACKAGE, EVERYDAY_FILE = "wordfreq", "data/large_en.msgpack.gz"
_TOKEN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9_./+-]*[A-Za-z0-9+])?")
_JOINERS = re.compile(r"[_./-]")
# Numbers with a unit, times, ordinals, versions of nothing: `3h`, `10am`, `2nd`, `15%`.
_MEASURE = re.compile(
    r"^\d+(?:[.,]\d+)?(?:st|nd|rd|th|h|hr|hrs|m|min|mins|s|ms|am|pm|k|x|d|w|y|gb|mb|kb|tb)?$", re.I
)
# Capitalised words that name no one thing: days, months, and words capitalised by habit.
_DAYS = "monday tuesday wednesday thursday friday saturday sunday"
_MONTHS = "january february march april may june july august september october november december"
_NOT_NAMES = frozenset(f"i i'm im ok mr mrs ms dr {_DAYS} {_MONTHS}".split(" "))
# Endings that make a common word of a common word (`caching`, `painless`); not `-er`, which
# makes names of words (`docker` is no `dock`).
_SUFFIXES = ("ing", "ed", "es", "s", "ies", "ied", "less", "ness", "ful", "ment", "ments", "able")


@dataclass(frozen=True)
class AnchorFinder:
    """Finds the anchors of texts against a lexicon of common words (lower case)."""

    lexicon: frozenset[str]
    everyday: frozenset[str]  # everyday English words, lower case

    def find(self, text: str) -> list[str]:
        """The text's anchors, lower case, each once, in order of first use."""
        found: dict[str, None] = {}
        for anchor in self._anchors(text):
            if anchor not in found:
                found[anchor] = None
                if len(found) >= MAX_ANCHORS:
                    break
        return list(found)

    def _anchors(self, text: str) -> Iterator[str]:
        for match in _TOKEN.finditer(text):
            token = match.group()
            if token[0].isupper() and token[1:].islower() and token.isalpha():
                # A capitalised common word (`Tim`, `Decision`, a sentence's first word) names
                # too many things to tie two memories together.
                if not self._common(token.lower()):
                    yield token.lower()
            elif self._term(token):
                yield token.lower()

    def _term(self, token: str) -> bool:
        """Whether a token that is not a plain capitalised word is a name or a rare term."""
        if len(token) < 2 or token.isdigit() or _MEASURE.match(token):
            return False
        letters = any(c.isalpha() for c in token)
        if letters and any(c.isdigit() for c in token):
            return True
        if not letters:
            return False
        if "_" in token:
            return True
        parts = [part for part in _JOINERS.split(token) if part]
        if len(parts) > 1:
            return any(not self._common(part.lower()) for part in parts if part.isalpha())
        if token.isupper():  # AWS, EKS; not API or CPU, which every agent says
            return len(token) >= 2 and not self._common(token.lower())
        if any(c.isupper() for c in token[1:]):
            return True  # ChromaDB, GitHub, iOS
        word = token.lower()
        return len(word) >= 4 and not self._common(word) and word not in self.everyday

    def _common(self, word: str) -> bool:
        """A common English word, or a form of one (`caching` of `cache`)."""
        if word in self.lexicon or word in _NOT_NAMES:
            return True
        for suffix in _SUFFIXES:
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                stem = word[: -len(suffix)]
                if stem in self.lexicon or stem + "e" in self.lexicon or stem + "y" in self.lexicon:
                    return True
                if len(stem) > 3 and stem[-1] == stem[-2] and stem[:-1] in self.lexicon:
                    return True  # running, stopped
        return False


def load_lexicon(tokenizer_json: Path) -> frozenset[str]:
    """The whole words of a WordPiece vocabulary (a tokenizer.json), lower case."""
    vocabulary = json.loads(tokenizer_json.read_text(encoding="utf-8"))["model"]["vocab"]
    return frozenset(word for word in vocabulary if word.isalpha() and word.islower())


def load_everyday_words(cbpack: Path, zipf: float = EVERYDAY_ZIPF) -> frozenset[str]:
    """The words of a wordfreq list (its "cBpack": gzipped msgpack, a header, then the words
    of each frequency from the most frequent down, one list per centibel) at least `zipf`
    frequent, those of letters only."""
    header, *by_centibel = msgpack.unpackb(gzip.decompress(cbpack.read_bytes()), raw=False)
    if header != {"format": "cB", "version": 1}:
        raise ValueError(f"{cbpack} is not a word list of the known format: {header!r}")
    # A word in list i is used 10 ** (-i / 100) of the time: Zipf 9 - i / 100.
    last = round((9 - zipf) * 100)
    return frozenset(w for words in by_centibel[: last + 1] for w in words if w.isalpha())


def build_anchor_finder() -> AnchorFinder:
    """The finder with the lexicon of the default embedding model's vocabulary (always
    installed, whichever embedder the service uses) and wordfreq's everyday English."""
    tokenizer = MINILM.tokenizer
    assert isinstance(tokenizer, PackageFile)
    return AnchorFinder(
        load_lexicon(package_dir(tokenizer.package) / tokenizer.path),
        load_everyday_words(package_dir(EVERYDAY_PACKAGE) / EVERYDAY_FILE),
    )
