"""Exact token counts with tiktoken, its vocabularies loaded from installed package data."""

import functools
import gzip
import hashlib
import os
import uuid
from pathlib import Path
from typing import Annotated, Literal, Protocol

import tiktoken
from pydantic import AfterValidator, Field

from app.core.fields import Text
from app.providers.long_counts import LongCounts
from app.providers.packages import package_dir

EncodingName = Literal["o200k_base", "cl100k_base"]
ENCODINGS: tuple[EncodingName, ...] = ("o200k_base", "cl100k_base")

# tiktoken caches a vocabulary under the sha1 of its URL and checks its sha256 (tiktoken_ext).
_BLOB_URL = "https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"
# Lines of memories are counted again in every build that considers them; remembering the counts
# of short texts (a few MiB at most) takes tokenizing out of most builds.
_CACHED_TEXTS = 32_768
_CACHED_MAX_CHARS = 2_000
_SHA256 = {
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
}


def _shipped_encoding(model: str) -> str:
    """A target model whose tokens can be counted here: tiktoken counts a model it knows with
    that model's encoding, and only o200k_base and cl100k_base are shipped (any model it does
    not know is counted with the default)."""
    try:
        name = tiktoken.encoding_name_for_model(model)
    except KeyError:
        return model
    if name not in ENCODINGS:
        raise ValueError(
            f"{model} counts tokens with the {name} vocabulary, which this service does not "
            f"ship; name a model counted with {' or '.join(ENCODINGS)} (gpt-4o, gpt-4, "
            "gpt-3.5-turbo, ...), or leave model out to count with the default"
        )
    return model


# A model named to count a context's tokens (the budget is counted with its own tokenizer).
TargetModel = Annotated[
    Text, Field(min_length=1, max_length=100), AfterValidator(_shipped_encoding)
]


class Tokens(Protocol):
    """The target model's tokenizer, as the steps of a build use it (`TokenCounter.bound`)."""

    def count(self, text: str) -> int: ...

    def truncate(self, text: str, max_tokens: int) -> str: ...


def count_extended(tokens: Tokens, text: str, text_tokens: int, suffix: str) -> int:
    """The exact tokens of `text + suffix`, given `text`'s own count: only `text`'s last line
    (from its last line break that is followed by a character starting a new piece) and the
    suffix are counted.

    tiktoken splits a text into pieces with one pattern (o200k_base's, cl100k_base's) and encodes
    each piece alone. No piece runs from a line break on into a character that is neither white
    space nor `/` (the line break ends the white space or punctuation piece it belongs to), and
    the pieces before such a break are found the same whatever follows it: the count of a text
    is the sum of the counts of its parts split there (`tests/providers/test_tokenizer.py`
    holds it on random texts in both encodings). Without such a break, `text + suffix` is
    counted whole."""
    cut = _last_piece_start(text)
    if cut is None:
        return tokens.count(text + suffix)
    tail = text[cut:]
    return text_tokens - tokens.count(tail) + tokens.count(tail + suffix)


def _last_piece_start(text: str) -> int | None:
    """The position after the last line break of `text` that a new piece starts at, if any."""
    at = text.rfind("\n")
    while at != -1:
        following = text[at + 1 : at + 2]
        if following and not following.isspace() and following != "/":
            return at + 1
        at = text.rfind("\n", 0, at)
    return None


class VocabularyError(RuntimeError):
    """A packaged vocabulary is missing or does not match tiktoken's checksum."""


def install_vocabularies(cache_dir: Path) -> None:
    """Place the `bpe-openai` wheel's vocabularies where tiktoken looks, so it never downloads."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    for name in ENCODINGS:
        target = cache_dir / hashlib.sha1(_BLOB_URL.format(name=name).encode()).hexdigest()
        if target.exists() and hashlib.sha256(target.read_bytes()).hexdigest() == _SHA256[name]:
            continue
        packaged = package_dir("bpe_openai") / "data" / f"{name}.tiktoken.gz"
        data = gzip.decompress(packaged.read_bytes())
        if hashlib.sha256(data).hexdigest() != _SHA256[name]:
            raise VocabularyError(f"{name} in bpe-openai does not match tiktoken's checksum")
        # A name of our own: another process may be installing the same file right now.
        tmp = target.with_name(f"{target.name}.{os.getpid()}.{uuid.uuid4().hex}.tmp")
        tmp.write_bytes(data)
        tmp.replace(target)
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache_dir)


class TokenCounter:
    """Counts and truncates text in the tokens of a target model."""

    def __init__(self, cache_dir: Path, default_encoding: EncodingName = "o200k_base") -> None:
        install_vocabularies(cache_dir)
        self.default_encoding: EncodingName = default_encoding
        self._encodings = {name: tiktoken.get_encoding(name) for name in ENCODINGS}
        self._cached_count = functools.lru_cache(maxsize=_CACHED_TEXTS)(self._count)
        self._long = LongCounts(self._count)

    def encoding_for_model(self, model: str | None) -> EncodingName:
        """The encoding of a model tiktoken knows; the configured default otherwise."""
        if not model:
            return self.default_encoding
        try:
            name = tiktoken.encoding_name_for_model(model)
        except KeyError:
            return self.default_encoding
        for known in ENCODINGS:  # narrows tiktoken's str to the encodings shipped here
            if name == known:
                return known
        return self.default_encoding

    def count(self, text: str, encoding: EncodingName | None = None) -> int:
        """The exact number of tokens of `text`."""
        name = encoding or self.default_encoding
        if len(text) > _CACHED_MAX_CHARS:
            return self._long.count(text, name)
        return self._cached_count(text, name)

    def _count(self, text: str, encoding: EncodingName) -> int:
        return len(self._encodings[encoding].encode_ordinary(text))

    def counts(self, text: str) -> dict[EncodingName, int]:
        """Token counts of `text` in every supported encoding."""
        return {name: len(enc.encode_ordinary(text)) for name, enc in self._encodings.items()}

    def truncate(self, text: str, max_tokens: int, encoding: EncodingName | None = None) -> str:
        """The longest prefix of `text` that fits `max_tokens`, cut at a word where possible."""
        enc = self._encodings[encoding or self.default_encoding]
        tokens = enc.encode_ordinary(text)
        if len(tokens) <= max_tokens:
            return text
        ellipsis = "…"
        room = max(max_tokens - len(enc.encode_ordinary(ellipsis)), 0)
        cut = enc.decode(tokens[:room])
        space = cut.rfind(" ")
        if space > len(cut) // 2:
            cut = cut[:space]
        result = cut.rstrip() + ellipsis
        while result and len(enc.encode_ordinary(result)) > max_tokens:
            result = result[:-2] + ellipsis if len(result) > 1 else ""
        return result

    def bound(self, encoding: EncodingName) -> "BoundTokens":
        """Counting and truncation in one encoding, for code that serves one model."""
        return BoundTokens(self, encoding)


class BoundTokens:
    """A TokenCounter fixed to one encoding."""

    def __init__(self, counter: TokenCounter, encoding: EncodingName) -> None:
        self.counter = counter
        self.encoding: EncodingName = encoding

    def count(self, text: str) -> int:
        return self.counter.count(text, self.encoding)

    def truncate(self, text: str, max_tokens: int) -> str:
        return self.counter.truncate(text, max_tokens, self.encoding)
