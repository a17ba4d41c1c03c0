"""Rendering: the sections in the seed's order, the constraints as rules, past experience
under its day. No database: the target model's tokenizer only."""

import uuid

from app.context.pipeline import assemble
from app.context.types import Censor
from app.providers.tokenizer import TokenCounter
from tests.context.builders import candidate, content, ranked_by_settings


def test_sections_follow_the_seed_order(token_counter: TokenCounter) -> None:
    tokens = token_counter.bound("o200k_base")
    candidates = [
        candidate("decision", "Decision: Chose Postgres.", "Chose Postgres [success]", 0.8),
        candidate("fact", "Redis is a separate service.", "Redis is separate", 0.7),
        candidate("procedure", "Core patterns:\n- Evaluate two options", "Arch", 0.6),
        candidate("episode", "Storage discussion with Tim.", "Storage talk", 0.5),
    ]
    candidates[2].title = "Architecture Decision"
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
        "## Procedure: Architecture Decision",
        "## Past Experience",
        "## Note",
    ]
    assert "## Procedure: Architecture Decision\nCore patterns:\n- Evaluate two options" in (
        result.text
    )
    assert "- BLOCK: Don't add infrastructure — over-engineering" in result.text
    assert "## Past Experience\nOn 31 October 2026:\n- Storage discussion with Tim." in result.text
