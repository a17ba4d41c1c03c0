"""Past Learnings' promise: whatever the memories, window, session and encoding, the section adds
at most its budget to the context, no memory is shown twice, and the context with it and the
history chosen in what it leaves never exceed available. No database: the tokenizer only."""

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from app.context.history import learnings
from app.context.history.choice import HistoryMessage, select_history
from app.context.history.window import learnings_share, memory_share
from app.context.pipeline import assemble
from app.context.selection.gate import Gate, admissions
from app.context.types import FlexibleKind
from app.core.context_config import WindowSettings
from app.providers.tokenizer import ENCODINGS, EncodingName, TokenCounter
from tests.context.builders import KINDS, candidate, content, ranked_by_settings
from tests.context.history.test_choice import sessions, words

fractions = st.floats(0, 1, allow_nan=False)


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    items=st.lists(
        st.tuples(st.sampled_from(KINDS), words, words, st.floats(0, 1), st.booleans(), words),
        max_size=25,
    ),
    available=st.one_of(st.integers(1, 300), st.integers(1, 6000)),
    memory_fraction=fractions,
    learnings_fraction=fractions,
    messages=sessions(),
    encoding=st.sampled_from(ENCODINGS),
)
def test_context_with_learnings_and_history_never_exceed_available(
    token_counter: TokenCounter,
    items: list[tuple[FlexibleKind, str, str, float, bool, str]],
    available: int,
    memory_fraction: float,
    learnings_fraction: float,
    messages: list[HistoryMessage],
    encoding: EncodingName,
) -> None:
    assume(memory_fraction + learnings_fraction <= 1)
    tokens = token_counter.bound(encoding)
    window = WindowSettings(
        total=available,
        system_reserve=0,
        tools_reserve=0,
        memory_fraction=memory_fraction,
        learnings_fraction=learnings_fraction,
    )
    candidates, notes = [], {}
    for kind, summary, micro, similarity, reviewed, note in items:
        made = candidate(kind, summary or "x", micro or "y", similarity)
        made.state = "reviewed" if reviewed and kind == "decision" else ""
        made.title = (micro or "y")[:20] if kind == "procedure" and reviewed else None
        if note.strip():
            notes[made.memory_id] = note.strip()
        candidates.append(made)
    ranked = ranked_by_settings(candidates)
    memory = memory_share(window)
    share = learnings_share(window, memory)
    chosen = learnings.choose(tokens, ranked, admissions(ranked, Gate()), 0.95, share, notes, 5)
    assembly = assemble(tokens, memory, content(), ranked, reserved=chosen.ids())
    text, count, shown = learnings.attach(tokens, assembly.text, assembly.tokens, chosen)
    assert tokens.count(text) == count == assembly.tokens + shown.used
    assert 0 <= shown.used <= share
    assert len(shown.items) <= 5  # seed 001: up to 5
    assert assembly.tokens <= memory
    assert all(learnings.is_learning(i.scored.candidate) for i in shown.items)
    assert [i.scored.score for i in shown.items] == sorted(
        (i.scored.score for i in shown.items), reverse=True
    )
    # Each candidate once: in a layer, in Past Learnings, or left out.
    in_layers = [str(i) for i in assembly.included_ids()]
    learned = [str(i) for i in shown.ids()]
    left_out = [str(e.scored.candidate.memory_id) for e in assembly.excluded]
    unused = [str(i) for i in chosen.ids() - shown.ids()]  # cut to fit: neither here nor there
    every = in_layers + learned + left_out + unused
    assert sorted(every) == sorted(str(c.memory_id) for c in candidates)
    # The history takes what the context left, and the promise holds.
    history = select_history(tokens, messages, available - count, sinks=2, fresh_tail=4)
    assert count + history.tokens <= available


def test_a_lesson_holds_the_outcome_notes_and_a_procedure_its_name(
    token_counter: TokenCounter,
) -> None:
    tokens = token_counter.bound("o200k_base")
    made = candidate(
        "decision",
        'Chose Postgres over Redis [success, 0.85] — "One service fewer"',
        "Chose Postgres over Redis [success, 0.85]",
        0.9,
    )
    made.state = "reviewed"
    pending = candidate("decision", "Chose Kafka [pending, 0.70]", "Chose Kafka", 0.9)
    steps = candidate("procedure", "Steps: measure → decide", "Evaluate: measure → decide", 0.8)
    steps.title = "Evaluate"
    ranked = ranked_by_settings([made, pending, steps])
    notes = {made.memory_id: "Reads stayed under 2 ms."}
    chosen = learnings.choose(tokens, ranked, admissions(ranked, Gate()), 0.95, 200, notes, 5)
    text, _count, shown = learnings.attach(tokens, "## Identity\nNewton.", 5, chosen)
    assert text == (
        "## Identity\nNewton.\n\n## Past Learnings\n"
        '- Chose Postgres over Redis [success, 0.85] — "One service fewer"\n'
        "  Outcome: Reads stayed under 2 ms.\n"
        "- Evaluate: Steps: measure → decide"
    )
    assert [i.detail for i in shown.items] == ["summary", "summary"]
    # Room for the header and the one-liner alone: the best learning comes as its one-liner.
    micro = "- Chose Postgres over Redis [success, 0.85]"
    room = tokens.count(learnings.LEARNINGS_HEADER) + 2 + tokens.count(micro) + 1
    tight = learnings.choose(tokens, ranked, admissions(ranked, Gate()), 0.95, room, notes, 5)
    assert [(i.line, i.detail) for i in tight.items] == [(micro, "micro")]


def test_at_most_the_limit_of_learnings_best_first(token_counter: TokenCounter) -> None:
    tokens = token_counter.bound("o200k_base")
    made = [
        candidate("procedure", f"Procedure {name}: step one, then two", f"{name} steps", sim)
        for name, sim in (("deploy", 0.9), ("rollback", 0.8), ("restore", 0.7), ("rotate", 0.6))
    ]
    ranked = ranked_by_settings(made)
    chosen = learnings.choose(tokens, ranked, admissions(ranked, Gate()), 0.95, 500, {}, 2)
    assert [i.scored.candidate.memory_id for i in chosen.items] == [
        made[0].memory_id,
        made[1].memory_id,
    ]
