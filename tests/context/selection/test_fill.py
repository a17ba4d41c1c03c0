"""Filling the memory layers: detail levels, the summary share, what is left out and why, and a
layer's unused share going to the others. No database: the target model's tokenizer only."""

from app.context.pipeline import assemble
from app.context.selection.fill import Rules
from app.context.selection.gate import Gate
from app.providers.tokenizer import TokenCounter
from tests.context.builders import candidate, content, ranked_by_settings


def test_tight_budget_uses_micro_before_dropping(token_counter: TokenCounter) -> None:
    tokens = token_counter.bound("o200k_base")
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
    token_counter: TokenCounter,
) -> None:
    tokens = token_counter.bound("o200k_base")
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
    token_counter: TokenCounter,
) -> None:
    tokens = token_counter.bound("o200k_base")
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
        rules=Rules(Gate(min_similarity=0.2)),
    )
    reasons = {e.scored.candidate.summary: e.reason for e in result.excluded}
    assert reasons == {
        "Redis is really fast.": "duplicate",
        "The office plant needs water.": "score",
    }


def test_unused_share_flows_to_other_layers(token_counter: TokenCounter) -> None:
    tokens = token_counter.bound("o200k_base")
    episodes = [
        candidate("episode", f"Turn {i}: we talked about the trip to Paris.", f"Turn {i}", 0.8)
        for i in range(60)
    ]
    result = assemble(tokens, 1000, content(identity=""), ranked_by_settings(episodes))
    episodes_layer = next(layer for layer in result.layers if layer.name == "episodes")
    assert episodes_layer.used > episodes_layer.budget  # took what decisions etc. left
    assert result.tokens > 800
