"""Anchors: the names and rare terms of a text, found by their form and a lexicon of common
words. No database."""

import pytest

from app.providers.anchors import AnchorFinder, build_anchor_finder


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
