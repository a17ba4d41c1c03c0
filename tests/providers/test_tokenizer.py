"""Exact token counts from the packaged vocabularies, with no network."""

import numpy as np

from app.providers.container import Providers


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
