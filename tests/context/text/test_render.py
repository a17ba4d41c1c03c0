"""Rendering: the sections in the seed's order, the constraints as rules, past experience
under its day. No database: the target model's tokenizer only."""

import uuid
from dataclasses import replace

from app.context.pipeline import assemble
from app.context.text.render import fit_fixed
from app.context.types import Censor
from app.providers.tokenizer import TokenCounter
from tests.context.builders import FRAME, candidate, content, ranked_by_settings


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


def test_the_frame_asks_whole_questions_or_none(token_counter: TokenCounter) -> None:
    tokens = token_counter.bound("o200k_base")
    frame = replace(
        FRAME,
        description="Architecture decision detected. Weigh the options before answering.",
        questions=(
            "What exactly is being decided, and what would change if we chose otherwise?",
            "What did we decide last time in a similar situation, and how did it turn out?",
        ),
    )
    whole = {f"- {question}" for question in frame.questions}
    seen = set()
    for budget in range(1, 3000, 7):
        fixed = fit_fixed(tokens, replace(content(), frame=frame), budget)
        section = fixed.sections["frame"]
        if section is None:
            continue
        lines = section.split("\n")
        asked = lines[lines.index("Consider:") + 1 :] if "Consider:" in lines else []
        assert set(asked) <= whole, (budget, section)
        assert "Consider:" not in lines or asked, (budget, section)
        assert frame.description.startswith(lines[1].removesuffix("…"))
        seen.add(len(asked))
    assert seen == {0, 1, 2}  # the budgets went from none to every question
