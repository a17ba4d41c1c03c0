"""Exact token counts from the packaged vocabularies, with no network."""

import numpy as np
import tiktoken
from hypothesis import example, given, settings
from hypothesis import strategies as st

from app.providers.container import Providers
from app.providers.long_counts import LongCounts
from app.providers.tokenizer import ENCODINGS, TokenCounter, count_extended


def test_counts_match_the_model_vocabularies(providers: Providers) -> None:
    tokens = providers.tokens
    # Reference counts of the published vocabularies for the same text.
    assert tokens.count("hello world", "o200k_base") == 2
    assert tokens.count("hello world", "cl100k_base") == 2
    text = '{"key": "值", "list": [1, 2, 3]}'
    assert tokens.count(text, "o200k_base") != len(text) // 4


def test_models_map_to_their_encodings(providers: Providers) -> None:
    tokens = providers.tokens
    assert tokens.encoding_for_model("gpt-4o-mini") == "o200k_base"
    assert tokens.encoding_for_model("gpt-4") == "cl100k_base"
    assert tokens.encoding_for_model("gpt-3.5-turbo") == "cl100k_base"
    assert tokens.encoding_for_model("some-local-llama") == tokens.default_encoding
    assert tokens.encoding_for_model(None) == tokens.default_encoding


def test_truncate_never_exceeds_the_limit(providers: Providers) -> None:
    tokens = providers.tokens
    text = "Deploy: branch, pull request, review, CI, merge, tag, release notes. " * 20
    for limit in (1, 2, 5, 17, 40):
        cut = tokens.truncate(text, limit)
        assert tokens.count(cut) <= limit
    assert tokens.truncate("short", 10) == "short"


async def test_local_embedder_puts_paraphrases_close(providers: Providers) -> None:
    vectors = np.array(
        await providers.embedder.embed(
            ["We use Redis for caching", "Redis is our cache", "The budget review is on Monday"]
        )
    )
    similar, unrelated = vectors[0] @ vectors[1], vectors[0] @ vectors[2]
    assert similar > 0.7 > unrelated
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)


async def test_local_embedder_gives_a_text_the_same_vector_in_any_batch(
    providers: Providers,
) -> None:
    short = "Redis is our cache"
    long = "The incident review covered the failover, the stale reads and the new alerting. " * 6
    alone = np.array(await providers.embedder.embed([short]))[0]
    batch = [long, short, *(f"note {i} about deploys" for i in range(20))]
    together = np.array(await providers.embedder.embed(batch))
    # Padding never leaks into a vector, and results come back in the order asked.
    assert np.allclose(together[1], alone, atol=1e-5)
    assert together[0] @ alone < 0.9
    assert together.shape == (len(batch), alone.shape[0])


def test_counts_are_the_same_when_remembered(providers: Providers) -> None:
    tokens = providers.tokens
    line = "- Caroline: I went to a support group yesterday."
    assert tokens.count(line) == tokens.count(line) == tokens.count(line, "o200k_base")
    assert tokens.count(line, "cl100k_base") == tokens.count(line, "cl100k_base")
    long = "word " * 1000  # longer than what is remembered: counted every time, the same
    assert tokens.count(long) == tokens.count(long) > 900


def test_long_texts_are_counted_once_while_they_fit_the_bound() -> None:
    counted: list[str] = []

    def count(text: str, encoding: str) -> int:
        counted.append(text)
        return len(text.split())

    longs = LongCounts(count, max_chars=25_000)
    first, second, third = ("word " * 2_400, "term " * 2_400, "item " * 2_400)  # 12,000 chars
    assert longs.count(first, "o200k_base") == 2_400
    assert longs.count(first, "o200k_base") == 2_400
    assert longs.count(first, "cl100k_base") == 2_400  # each encoding counts on its own
    assert counted == [first, first]
    longs.count(second, "o200k_base")  # over the bound: the least recently used goes
    assert longs.count(first, "cl100k_base") == 2_400
    longs.count(third, "o200k_base")
    longs.count(first, "cl100k_base")
    longs.count(first, "o200k_base")
    assert counted == [first, first, second, third, first]


def test_a_long_text_counts_as_the_encoding_does(providers: Providers) -> None:
    tokens = providers.tokens
    text = "Deploy the ledger service with the new index, then watch the lock waits. " * 60
    expected = len(tiktoken.get_encoding("o200k_base").encode_ordinary(text))
    assert tokens.count(text, "o200k_base") == expected
    assert tokens.count(text, "o200k_base") == expected


# Lines as contexts hold them: words, numbers, punctuation, quotes, paths, other scripts, runs
# of spaces and line breaks.
_PARTS = [*"abcXYZ019 .,:;-—'\"()[]#*/\\\t_é値🙂", "'s", "'ll", "  ", "\n", "\r\n", "- ", "## "]
_LINE = st.lists(st.sampled_from(_PARTS), max_size=30).map("".join)


@settings(max_examples=300, deadline=None)
@example(lines=["- Newton storage (2h, with Tim)"], suffix="## Earlier", blank=True)
@given(lines=st.lists(_LINE, min_size=1, max_size=8), suffix=_LINE, blank=st.booleans())
def test_a_text_extended_is_counted_from_its_last_line_exactly(
    token_counter: TokenCounter, lines: list[str], suffix: str, blank: bool
) -> None:
    text = "\n".join(lines)
    joined = ("\n\n" if blank else "") + suffix
    for encoding in ENCODINGS:
        tokens = token_counter.bound(encoding)
        counted = count_extended(tokens, text, tokens.count(text), joined)
        assert counted == tokens.count(text + joined), (encoding, text, joined)
