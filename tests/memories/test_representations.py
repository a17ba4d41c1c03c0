"""Micro, summary and full representations rendered from a memory's fields."""

from pydantic import JsonValue

from app.memories.representations import MICRO_MAX_TOKENS, SUMMARY_MAX_TOKENS, render
from app.providers.container import Providers


def test_decision_summary_carries_reasons_alternatives_and_outcome(providers: Providers) -> None:
    fields: dict[str, JsonValue] = {
        "decision": "Chose Postgres + pgvector",
        "reasons": ["One backup target"],
        "alternatives": ["ChromaDB"],
        "confidence": 0.85,
        "outcome": "success",
        "outcome_notes": "Queries 8.5x faster",
    }
    rendered = render("decision", fields, providers.tokens, providers.extractive)
    assert rendered.micro == "Chose Postgres + pgvector [success, 0.85]"
    assert "Reasons: One backup target." in rendered.summary
    assert "Alternatives: ChromaDB." in rendered.summary
    assert "Outcome: Success, confidence 0.85. Queries 8.5x faster." in rendered.summary
    assert rendered.summary_source == "template"
    assert "Alternatives considered:\n- ChromaDB" in rendered.full


def test_censor_renders_its_action_pattern_and_reason(providers: Providers) -> None:
    fields: dict[str, JsonValue] = {
        "trigger_pattern": "Don't push to main",
        "reason": "review first",
        "action": "block",
    }
    rendered = render("censor", fields, providers.tokens, providers.extractive)
    assert rendered.micro == "BLOCK: Don't push to main — review first"


def test_long_episode_gets_a_bounded_extractive_summary(providers: Providers) -> None:
    sentences = [f"Sentence {i} talks about the Redis cache migration plan." for i in range(60)]
    fields: dict[str, JsonValue] = {
        "title": "Cache migration",
        "detail": " ".join(sentences),
        "participants": ["Tim"],
    }
    rendered = render("episode", fields, providers.tokens, providers.extractive)
    assert rendered.summary_source == "extractive"
    assert rendered.wants_llm_summary
    assert providers.tokens.count(rendered.summary) <= SUMMARY_MAX_TOKENS
    assert providers.tokens.count(rendered.micro) <= MICRO_MAX_TOKENS
    assert set(rendered.summary.split()) <= set(rendered.full.split())  # its own sentences
    assert rendered.full.startswith("Cache migration\nParticipants: Tim\n")


def test_short_episode_is_its_own_summary(providers: Providers) -> None:
    fields: dict[str, JsonValue] = {"detail": "Caroline: I went to the support group yesterday."}
    rendered = render("episode", fields, providers.tokens, providers.extractive)
    assert rendered.summary == rendered.full == fields["detail"]
    assert not rendered.wants_llm_summary


def test_author_summary_is_kept(providers: Providers) -> None:
    fields: dict[str, JsonValue] = {
        "title": "Incident",
        "summary": "DB failover took 3 minutes.",
        "detail": "x " * 500,
    }
    rendered = render("episode", fields, providers.tokens, providers.extractive)
    assert (rendered.summary, rendered.summary_source) == ("DB failover took 3 minutes.", "author")
