"""Anchors: the names and rare terms of a text, found by their form and a lexicon of common
words. No database."""

import gzip
from pathlib import Path

import msgpack
import pytest

from app.providers.anchors import AnchorFinder, build_anchor_finder, load_everyday_words


@pytest.fixture(scope="module")
def finder() -> AnchorFinder:
    return build_anchor_finder()


@pytest.mark.parametrize(
    ("text", "anchors"),
    [
        # A capitalised common word names too many things: Newton, Tim, a sentence's first.
        ("Should we use Redis for caching in Newton?", ["redis"]),
        (
            "Chose Postgres + pgvector over separate ChromaDB for unified storage",
            ["postgres", "pgvector", "chromadb"],
        ),
        (
            "Newton's docker-compose currently has 3 services (newton, postgres, dashboard)",
            ["docker-compose", "postgres"],
        ),
        (
            "Deploy to us-east-1 with FEATURE_FLAG_X on v2.3 after JIRA-123 (took 3h, 2nd try)",
            ["us-east-1", "feature_flag_x", "v2.3", "jira-123"],
        ),
        ("We met in New York on Monday with Sarah Connor.", []),
        (
            "Kwame Mensah from GitHub runs EKS on AWS; the API and CPU are fine.",
            ["kwame", "mensah", "github", "eks", "aws"],
        ),
        ("Tim prefers Celsius, not Fahrenheit.", ["celsius", "fahrenheit"]),
        ("The Kafka cluster crashed; see INC-2231.", ["kafka", "inc-2231"]),
        ("Caching the long-term results made reads painless.", []),
        # Everyday words the WordPiece vocabulary lacks, written in lower case: not names.
        ("The migration rewrote the table; retry when the token expires or a shard lags.", []),
        # Jargon and names written in lower case are rarer than everyday words.
        (
            "We backfill postgres from sqlite into pgvector on the cordoned nodes.",
            ["backfill", "postgres", "sqlite", "pgvector", "cordoned"],
        ),
        ("", []),
    ],
)
def test_names_and_rare_terms_are_anchors(
    finder: AnchorFinder, text: str, anchors: list[str]
) -> None:
    assert finder.find(text) == anchors


def test_a_long_text_keeps_its_first_anchors(finder: AnchorFinder) -> None:
    text = " ".join(f"host-{n:03d}x" for n in range(500))
    found = finder.find(text)
    assert found[:2] == ["host-000x", "host-001x"]
    assert len(found) == 48


def _cbpack(path: Path, header: object, by_centibel: list[list[str]]) -> Path:
    path.write_bytes(gzip.compress(msgpack.packb([header, *by_centibel])))
    return path


def test_everyday_words_are_those_of_the_list_at_least_so_frequent(tmp_path: Path) -> None:
    lists: list[list[str]] = [[] for _ in range(700)]
    lists[300] = ["the"]  # Zipf 6: once in a thousand words
    lists[640] = ["rewrote", "can't"]  # Zipf 2.6
    lists[650] = ["shard"]  # Zipf 2.5
    lists[660] = ["pgvector"]  # Zipf 2.4
    cbpack = _cbpack(tmp_path / "en.msgpack.gz", {"format": "cB", "version": 1}, lists)
    assert load_everyday_words(cbpack, zipf=2.5) == {"the", "rewrote", "shard"}
    assert load_everyday_words(cbpack, zipf=3.0) == {"the"}


def test_a_word_list_of_another_format_is_refused(tmp_path: Path) -> None:
    cbpack = _cbpack(tmp_path / "en.msgpack.gz", {"format": "cB", "version": 2}, [["the"]])
    with pytest.raises(ValueError, match="not a word list of the known format"):
        load_everyday_words(cbpack)
