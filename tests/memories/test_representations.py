"""Micro, summary and full representations rendered from a memory's fields."""

from pydantic import JsonValue

from app.memories.representations import MICRO_MAX_TOKENS, SUMMARY_MAX_TOKENS, render
from app.providers.container import Providers


def test_decision_summary_is_the_designs_one_line_with_its_main_reason(
    providers: Providers,
) -> None:
    fields: dict[str, JsonValue] = {
        "decision": "Chose Postgres + pgvector",
        "reasons": ["One backup target", "One monitor"],
        "alternatives": ["ChromaDB"],
        "confidence": 0.85,
        "outcome": "success",
        "outcome_notes": "Queries 8.5x faster",
    }
    rendered = render("decision", fields, providers.tokens, providers.extractive)
    assert rendered.micro == "Chose Postgres + pgvector [success, 0.85]"
    assert rendered.summary == 'Chose Postgres + pgvector [success, 0.85] — "One backup target"'
    assert rendered.summary_source == "template"
    assert "Alternatives considered:\n- ChromaDB" in rendered.full
    assert "Outcome: success — Queries 8.5x faster" in rendered.full


def test_procedure_summary_is_its_core_patterns(providers: Providers) -> None:
    fields: dict[str, JsonValue] = {
        "name": "Architecture Decision",
        "description": "How infrastructure choices are made.",
        "steps": ["Search past decisions", "Compare two options"],
        "core_patterns": ["Query similar past decisions", "Evaluate at least 2 alternatives"],
    }
    rendered = render("procedure", fields, providers.tokens, providers.extractive)
    assert rendered.summary == (
        "Core patterns:\n- Query similar past decisions\n- Evaluate at least 2 alternatives"
    )
    assert rendered.micro.startswith("Architecture Decision: Search past decisions → ")


def test_episode_leads_with_its_title_duration_and_participants(providers: Providers) -> None:
    fields: dict[str, JsonValue] = {
        "title": "Newton storage architecture discussion",
        "summary": "Chose Postgres + pgvector, rejected multi-service approaches.",
        "detail": "Long talk.",
        "participants": ["Tim"],
        "started_at": "2026-03-02T10:00:00Z",
        "ended_at": "2026-03-02T12:00:00Z",
    }
    rendered = render("episode", fields, providers.tokens, providers.extractive)
    assert rendered.micro == "Newton storage architecture discussion (2h, with Tim)"
    assert rendered.summary == (
        "Newton storage architecture discussion (2h, with Tim) — "
        "Chose Postgres + pgvector, rejected multi-service approaches."
    )


def test_extractive_summary_keeps_the_title_apart_and_never_repeats_a_sentence(
    providers: Providers,
) -> None:
    repeated = "The Redis password lives in the vault."
    filler = " ".join(f"Step {i} of the rollout went as planned for team {i}." for i in range(30))
    fields: dict[str, JsonValue] = {
        "title": "Cache rollout",
        "detail": f"{repeated} {repeated} {filler} {repeated}",
    }
    rendered = render("episode", fields, providers.tokens, providers.extractive)
    head, _, body = rendered.summary.partition(" — ")
    assert head == "Cache rollout"
    assert body.count(repeated) <= 1
    assert providers.tokens.count(rendered.summary) <= SUMMARY_MAX_TOKENS


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
    head, _, body = rendered.summary.partition(" — ")
    assert head == "Cache migration (with Tim)"
    assert set(body.split()) <= set(rendered.full.split())  # its own sentences
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
    assert rendered.summary == "Incident — DB failover took 3 minutes."
    assert rendered.summary_source == "author"
