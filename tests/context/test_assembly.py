"""The pure end of a build (fill, render, trim, manifest): layers, detail levels, and the
hard budget over random inputs."""

import uuid
from datetime import UTC, datetime, timedelta

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.context.fill import Rules
from app.context.pipeline import assemble
from app.context.ranking import rank
from app.context.render import FixedContent
from app.context.types import Candidate, Censor, FlexibleKind, Frame, Scored
from app.core.config import ContextSettings
from app.providers.container import Providers
from app.providers.tokenizer import ENCODINGS

NOW = datetime(2026, 11, 1, tzinfo=UTC)
SETTINGS = ContextSettings()
FRAME = Frame(
    name="decision",
    description="Architecture decision detected.",
    questions=("What are we optimizing for?", "What did we decide last time?"),
    priorities={"decision": 1.0, "procedure": 0.8, "fact": 0.6, "episode": 0.4},
    default_budget=12000,
)
KINDS: list[FlexibleKind] = ["decision", "fact", "procedure", "episode"]
words = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")),
    min_size=0,
    max_size=300,
)


def candidate(
    kind: FlexibleKind,
    summary: str,
    micro: str,
    semantic: float,
    age_days: float = 1.0,
    vector: list[float] | None = None,
) -> Candidate:
    return Candidate(
        memory_id=uuid.uuid4(),
        kind=kind,
        micro=micro,
        summary=summary,
        semantic=semantic,
        lexical=0.0,
        occurred_at=NOW - timedelta(days=age_days),
        embedding=None if vector is None else np.array(vector, dtype=np.float32),
    )


def ranked_by_settings(candidates: list[Candidate]) -> list[Scored]:
    """Ranked as the service ranks them, with the weights of its settings."""
    return rank(candidates, FRAME, NOW, SETTINGS.weights, SETTINGS.half_life_days)


def content(
    identity: str = "Newton agent. Analytical, cautious.",
    censors: tuple[Censor, ...] = (),
    working: str = "",
    calibration: str | None = None,
) -> FixedContent:
    return FixedContent(identity, censors, FRAME, working, calibration)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    budget=st.integers(min_value=1, max_value=3000),
    identity=words,
    working=words,
    items=st.lists(st.tuples(st.sampled_from(KINDS), words, words, st.floats(0, 1)), max_size=25),
    censor_count=st.integers(0, 6),
    encoding=st.sampled_from(ENCODINGS),
    note=st.one_of(st.none(), words),
)
def test_context_never_exceeds_its_budget(
    providers: Providers,
    budget: int,
    identity: str,
    working: str,
    items: list[tuple[FlexibleKind, str, str, float]],
    censor_count: int,
    encoding: str,
    note: str | None,
) -> None:
    tokens = providers.tokens.bound(encoding)  # type: ignore[arg-type]  # sampled from ENCODINGS
    candidates = [
        candidate(kind, summary or "x", micro or "y", sim) for kind, summary, micro, sim in items
    ]
    censors = tuple(
        Censor(uuid.uuid4(), "block" if i % 2 else "warn", f"pattern {i} " * 5, "reason " * 8)
        for i in range(censor_count)
    )
    result = assemble(
        tokens,
        budget,
        content(identity, censors, working, note),
        ranked_by_settings(candidates),
    )
    assert tokens.count(result.text) == result.tokens <= budget
    shown = {str(i.scored.candidate.memory_id) for layer in result.layers for i in layer.items}
    left_out = {str(e.scored.candidate.memory_id) for e in result.excluded}
    assert shown | left_out == {str(c.memory_id) for c in candidates}
    assert not shown & left_out


def test_sections_follow_the_seed_order(providers: Providers) -> None:
    tokens = providers.tokens.bound("o200k_base")
    candidates = [
        candidate("decision", "Decision: Chose Postgres.", "Chose Postgres [success]", 0.8),
        candidate("fact", "Redis is a separate service.", "Redis is separate", 0.7),
        candidate("procedure", "Architecture Decision: evaluate two options.", "Arch", 0.6),
        candidate("episode", "Storage discussion with Tim.", "Storage talk", 0.5),
    ]
    censors = (Censor(uuid.uuid4(), "block", "Don't add infrastructure", "over-engineering"),)
    result = assemble(
        tokens,
        4000,
        content(censors=censors, working="Designing storage.", calibration="Recent accuracy: 97%."),
        ranked_by_settings(candidates),
    )
    headers = [line for line in result.text.split("\n") if line.startswith("## ")]
    assert headers == [
        "## Identity",
        "## Active Constraints",
        "## Current Approach: Decision",
        "## Current Focus",
        "## Relevant Past Decisions",
        "## Known Information",
        "## Procedures",
        "## Past Experience",
        "## Note",
    ]
    assert "- BLOCK: Don't add infrastructure — over-engineering" in result.text
    assert "## Past Experience\nOn 31 October 2026:\n- Storage discussion with Tim." in result.text


def test_tight_budget_uses_micro_before_dropping(providers: Providers) -> None:
    tokens = providers.tokens.bound("o200k_base")
    long_summary = "Decision: chose the event bus. " + "Reasons: decoupling and replay. " * 10
    candidates = [
        candidate("decision", long_summary, f"Chose bus {i}", 0.9 - i / 100) for i in range(6)
    ]
    result = assemble(tokens, 200, content(identity=""), ranked_by_settings(candidates))
    details = [i.detail for layer in result.layers for i in layer.items]
    assert "micro" in details
    assert len(details) > 1  # micro lets more of them fit than summaries would
    assert result.tokens <= 200


def test_past_the_summary_share_further_memories_come_as_one_liners(
    providers: Providers,
) -> None:
    tokens = providers.tokens.bound("o200k_base")
    facts = [
        candidate(
            "fact",
            f"Service {i} runs on port {8000 + i}; its owners rotate weekly and page on errors.",
            f"Service {i}: port {8000 + i}",
            0.9 - i / 100,
        )
        for i in range(40)
    ]
    ranked = ranked_by_settings(facts)

    def build(share: float) -> list[tuple[str, str]]:
        result = assemble(
            tokens, 400, content(identity=""), ranked, rules=Rules(summary_share=share)
        )
        assert result.tokens <= 400
        items = next(layer for layer in result.layers if layer.name == "facts").items
        return [(i.scored.candidate.micro, i.detail) for i in items]

    summaries_only, mixed = build(1.0), build(0.5)
    assert len(mixed) > len(summaries_only)  # one-liners let more of them in
    assert mixed[0] == ("Service 0: port 8000", "summary")  # the strongest keeps its summary
    assert mixed[-1][1] == "micro"
    # A layer's best memory keeps its summary when it fits, however small the share.
    best = candidate("decision", "Decision: moved billing to the event bus. " * 4, "Bus", 0.9)
    rest = [
        candidate(
            "decision", f"Decision {i}: kept the nightly cron job {i}.", f"Kept cron {i}", 0.5
        )
        for i in range(60)
    ]
    tight = assemble(
        tokens,
        160,
        content(identity=""),
        ranked_by_settings([best, *rest]),
        rules=Rules(summary_share=0.01),
    )
    decisions = next(layer for layer in tight.layers if layer.name == "decisions").items
    assert (decisions[0].scored.candidate.micro, decisions[0].detail) == ("Bus", "summary")
    assert decisions[-1].detail == "micro"
    # With room to spare, every memory gets its summary again.
    roomy = assemble(tokens, 4000, content(identity=""), ranked[:5], rules=Rules(summary_share=0.5))
    assert {i.detail for layer in roomy.layers for i in layer.items} == {"summary"}


def test_irrelevant_and_duplicate_memories_are_left_out_with_a_reason(
    providers: Providers,
) -> None:
    tokens = providers.tokens.bound("o200k_base")
    same = [1.0] + [0.0] * 383
    candidates = [
        candidate("fact", "Redis is fast.", "Redis fast", 0.9, vector=same),
        candidate("fact", "Redis is really fast.", "Redis fast!", 0.85, vector=same),
        candidate("fact", "The office plant needs water.", "plant", 0.05),
    ]
    result = assemble(
        tokens,
        2000,
        content(),
        ranked_by_settings(candidates),
        rules=Rules(min_similarity=0.2),
    )
    reasons = {e.scored.candidate.summary: e.reason for e in result.excluded}
    assert reasons == {
        "Redis is really fast.": "duplicate",
        "The office plant needs water.": "score",
    }


def test_unused_share_flows_to_other_layers(providers: Providers) -> None:
    tokens = providers.tokens.bound("o200k_base")
    episodes = [
        candidate("episode", f"Turn {i}: we talked about the trip to Paris.", f"Turn {i}", 0.8)
        for i in range(60)
    ]
    result = assemble(tokens, 1000, content(identity=""), ranked_by_settings(episodes))
    episodes_layer = next(layer for layer in result.layers if layer.name == "episodes")
    assert episodes_layer.used > episodes_layer.budget  # took what decisions etc. left
    assert result.tokens > 800
