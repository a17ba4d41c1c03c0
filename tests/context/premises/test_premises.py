"""The premise check's pure parts: whether the memories found bear out what an input takes for
granted (found by the rules of `test_presuppositions.py`), and the note inside the hard budget.
No database."""

import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.context.pipeline import assemble
from app.context.premises.check import Flagged, PremiseCheck, attach, judge, reserve, retired_flag
from app.context.premises.presuppositions import Premise, presuppositions
from app.context.premises.repository import RetiredFact
from app.context.types import Scored
from app.providers.tokenizer import ENCODINGS, TokenCounter
from tests.context.builders import candidate, content, ranked_by_settings

KAFKA = "Why did the Kafka cluster crash?"
UNSUPPORTED = "Note: no memory records that the Kafka cluster crashed."
SIMILAR = 0.6


def premise_of(text: str) -> Premise:
    (premise,) = presuppositions(text)
    return premise


def facts(*texts: str, semantic: float = 0.4) -> list[Scored]:
    return ranked_by_settings([candidate("fact", text, text, semantic) for text in texts])


def test_memories_about_the_subject_that_record_no_crash_leave_it_unsupported() -> None:
    ranked = facts(
        "The Kafka cluster runs three brokers in the ops VPC.",
        "The Kafka cluster was upgraded to 3.6 in March.",
        "Invoices are emailed on the first of the month.",
    )
    flag = judge(premise_of(KAFKA), ranked, SIMILAR)
    assert isinstance(flag, Flagged)
    assert flag.status == "unsupported"
    kafka = {s.candidate.memory_id for s in ranked if "Kafka" in s.candidate.summary}
    assert set(flag.memory_ids) == kafka
    assert flag.line == UNSUPPORTED


@pytest.mark.parametrize(
    "record",
    [
        "The Kafka cluster crashed on Monday when its disks filled up.",
        "Monday's outage of the Kafka cluster lasted two hours.",  # the event in other words
        "kafka cluster crashes after the broker upgrade",
    ],
)
def test_a_memory_that_records_the_event_bears_the_premise_out(record: str) -> None:
    ranked = facts("The Kafka cluster runs three brokers.", record)
    assert judge(premise_of(KAFKA), ranked, SIMILAR) == "supported"


def test_an_event_word_no_memory_found_holds_leaves_a_half_true_premise_unsupported() -> None:
    painted = "Melanie: I painted a sunrise over the lake last week."
    ranked = ranked_by_settings([candidate("episode", painted, painted, 0.5)])
    assert judge(premise_of("When did Melanie paint a sunrise?"), ranked, SIMILAR) == "supported"
    flag = judge(premise_of("When did Melanie paint a lighthouse?"), ranked, SIMILAR)
    assert isinstance(flag, Flagged)
    assert flag.status == "unsupported"


def test_a_memory_that_denies_the_event_contradicts_it() -> None:
    ranked = facts("The Kafka cluster runs three brokers.", "The Kafka cluster has never crashed.")
    flag = judge(premise_of(KAFKA), ranked, SIMILAR)
    assert isinstance(flag, Flagged)
    assert flag.status == "contradicted"
    assert len(flag.memory_ids) == 1


@pytest.mark.parametrize(
    "record",
    [
        "Nate: On another note, I made vegan ice cream last Friday for my vegan diet group.",
        "Caroline: I had a not-so-great experience: I ran into some rude people on a hike.",
        "Tim: John and I both find LeBron inspiring.",
    ],
)
def test_a_negation_or_a_name_elsewhere_does_not_flag_a_recorded_event(record: str) -> None:
    question = {
        "N": "When did Nate make vegan ice cream?",
        "C": "When did Caroline run into rude people on a hike?",
        "T": "Why do Tim and John find LeBron inspiring?",
    }[record[0]]
    ranked = ranked_by_settings([candidate("episode", record, record, 0.3)])
    assert judge(premise_of(question), ranked, SIMILAR) == "supported"


@pytest.mark.parametrize(
    ("question", "record"),
    [
        ("Where did Oliver hide his bone?", "Melanie: Oliver hid his bone in my slipper once!"),
        ("When did Gina design the hoodies?", "Gina: This hoodie is from the line I designed."),
        ("When did Ann study law?", "Ann: I studied law in Leeds."),
    ],
)
def test_every_form_of_a_word_finds_it(question: str, record: str) -> None:
    ranked = ranked_by_settings([candidate("episode", record, record, 0.3)])
    assert judge(premise_of(question), ranked, SIMILAR) == "supported"


def test_a_memory_close_to_the_input_stands_in_for_the_words_of_the_event_it_says() -> None:
    talk = "Caroline: I gave a talk about my journey at the school event."
    premise = premise_of("When did Caroline give a speech at a school?")
    far = ranked_by_settings([candidate("episode", talk, talk, 0.4)])
    assert isinstance(judge(premise, far, SIMILAR), Flagged)  # no memory says "speech"
    close = ranked_by_settings([candidate("episode", talk, talk, 0.7)])
    assert judge(premise, close, SIMILAR) == "supported"


@pytest.mark.parametrize(
    ("question", "close", "line"),
    [
        (
            "Since Redis was deprecated, what do we use for caching?",
            "We use Redis for caching API responses.",
            "Note: no memory records that Redis was deprecated.",
        ),
        (KAFKA, "The Kafka cluster went belly up at noon.", UNSUPPORTED),
        (
            "Since we moved to Postgres, what do we use for caching?",
            "We keep every table in Postgres.",  # about Postgres, but no move
            "Note: no memory records that we moved to Postgres.",
        ),
    ],
)
def test_a_close_memory_that_says_nothing_of_the_event_does_not_bear_it_out(
    question: str, close: str, line: str
) -> None:
    flag = judge(premise_of(question), facts(close, semantic=0.84), SIMILAR)
    assert isinstance(flag, Flagged)
    assert (flag.status, flag.line) == ("unsupported", line)


@pytest.mark.parametrize(
    ("question", "record"),
    [
        (
            "Since Redis was deprecated, what do we use for caching?",
            "Redis was retired last spring; Memcached took over the caching.",
        ),
        (
            "Since we moved to Postgres, what do we use for caching?",
            "We migrated the storage from SQLite to Postgres in March.",
        ),
    ],
)
def test_a_close_memory_that_records_the_event_bears_it_out(question: str, record: str) -> None:
    ranked = facts("We use Redis for caching API responses.", record, semantic=0.84)
    assert judge(premise_of(question), ranked, SIMILAR) == "supported"


def test_with_no_memory_about_the_subject_nothing_is_judged() -> None:
    ranked = facts("Invoices are emailed on the first of the month.")
    assert judge(premise_of(KAFKA), ranked, SIMILAR) == "unknown"


def test_a_premise_resting_on_an_invalidated_or_superseded_fact_is_contradicted() -> None:
    crash, newer = uuid.uuid4(), uuid.uuid4()
    invalid = RetiredFact(crash, "The Kafka cluster crashed on Monday.", "inactive", None, None)
    flag = retired_flag(premise_of(KAFKA), [invalid])
    assert flag is not None
    assert (flag.status, flag.memory_ids) == ("contradicted", (crash,))
    assert "marked invalid: The Kafka cluster crashed on Monday." in flag.line
    replaced = RetiredFact(
        crash, "The Kafka cluster crashed on Monday.", "superseded", newer, "A network split."
    )
    flag = retired_flag(premise_of(KAFKA), [replaced])
    assert flag is not None
    assert flag.memory_ids == (crash, newer)
    assert flag.line.endswith("Monday (now: A network split).")
    other = RetiredFact(crash, "The billing database crashed.", "inactive", None, None)
    assert retired_flag(premise_of(KAFKA), [other]) is None


def _unsupported() -> PremiseCheck:
    premise = premise_of(KAFKA)
    return PremiseCheck((Flagged(premise, "unsupported", (uuid.uuid4(),), UNSUPPORTED),))


words = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=300
)


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    budget=st.integers(min_value=1, max_value=2000),
    items=st.lists(st.tuples(words, st.floats(0, 1)), max_size=20),
    encoding=st.sampled_from(ENCODINGS),
)
def test_the_note_is_inside_the_budget_or_left_out(
    token_counter: TokenCounter, budget: int, items: list[tuple[str, float]], encoding: str
) -> None:
    tokens = token_counter.bound(encoding)  # type: ignore[arg-type]  # sampled from ENCODINGS
    checked = _unsupported()
    ranked = ranked_by_settings([candidate("fact", text or "x", "y", sim) for text, sim in items])
    room = budget - reserve(tokens, checked, budget)
    assembly = assemble(tokens, room, content("Kafka ops agent."), ranked)
    text, count, noted = attach(tokens, assembly.text, assembly.tokens, checked, budget)
    assert tokens.count(text) == count <= budget
    assert noted.in_context == text.endswith(checked.note())
    if budget >= 400:  # a tenth of it holds the note's line
        assert noted.in_context


PIECES = [*"abcXYZ '\u2019-?.,;!\n", "Why did ", "when was ", "the ", "Kafka ", "crash", "of "]
PIECES += ["since ", "we ", "outage", "ed ", "It ", "How does ", "Melanie's ", "and "]


@settings(max_examples=300, deadline=None)
@given(text=st.lists(st.sampled_from(PIECES), max_size=30).map("".join))
def test_any_input_is_read_without_error_and_its_premises_can_be_judged(text: str) -> None:
    ranked = facts("The Kafka cluster never crashed.", "We moved off Kafka.")
    for premise in presuppositions(text):
        assert premise.event
        verdict = judge(premise, ranked, SIMILAR)
        assert isinstance(verdict, Flagged) or verdict in ("supported", "unknown")
