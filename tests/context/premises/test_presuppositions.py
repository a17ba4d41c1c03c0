"""What an input takes for granted, found by rules (`app/context/premises/presuppositions.py`).
No database."""

import pytest

from app.context.premises.check import Flagged, judge
from app.context.premises.presuppositions import presuppositions
from tests.context.premises.test_premises import KAFKA, SIMILAR, facts, premise_of


@pytest.mark.parametrize(
    ("text", "said", "event"),
    [
        (KAFKA, "the Kafka cluster crashed", ("crash",)),
        (
            "When did Caroline go to the LGBTQ support group?",
            "Caroline went to the LGBTQ support group",
            ("lgbtq", "support", "group"),
        ),
        ("How did Melanie's daughter break her arm?", "Melanie's daughter broke her arm", None),
        ("Why was the v1 API deprecated?", "the v1 API was deprecated", ("deprecated",)),
        (
            "Since the v1 API was deprecated, what should clients call?",
            "the v1 API was deprecated",
            ("deprecated",),
        ),
        ("Who wrote the postmortem of the Kafka outage?", "the Kafka outage", ("outage",)),
        (
            "When did Joanna first watch the movie?",
            "Joanna first watched the movie",
            ("watch", "movie"),
        ),
        (
            "Why did the deploy of the billing service fail on Friday?",
            "the deploy of the billing service failed on Friday",
            ("fail",),
        ),
    ],
)
def test_the_premise_of_a_question_is_found_by_rules(
    text: str, said: str, event: tuple[str, ...] | None
) -> None:
    premise = premise_of(text)
    assert premise.text == said
    if event is not None:
        assert premise.event == event


@pytest.mark.parametrize(
    ("text", "said", "subject", "event"),
    [
        (
            "How did the crash of the Kafka cluster happen?",
            "the crash of the Kafka cluster",
            ("kafka", "cluster"),
            "crash",
        ),
        (
            "Why did the outage of the billing service happen last week?",
            "the outage of the billing service",
            ("billing", "service"),
            "outage",
        ),
        (
            "Why has the outage of the billing service happened?",
            "the outage of the billing service",
            ("billing", "service"),
            "outage",
        ),
        ("When did the Kafka outage occur?", "the Kafka outage", ("kafka",), "outage"),
        ("How did the Kafka outage come about?", "the Kafka outage", ("kafka",), "outage"),
        (
            "When did the deprecation of the v1 API take place?",
            "the deprecation of the v1 API",
            ("v1", "api"),
            "deprecation",
        ),
        (
            "How did the migration to Postgres begin?",
            "the migration to Postgres",
            ("postgres",),
            "migration",
        ),
        ("When did Caroline's adoption happen?", "Caroline's adoption", ("caroline",), "adoption"),
        (
            "How did the fight between Tim and John happen?",
            "the fight between Tim and John",
            ("tim", "john"),
            "fight",
        ),
        (
            "What caused the crash of the Kafka cluster last week?",
            "the crash of the Kafka cluster",
            ("kafka", "cluster"),
            "crash",
        ),
    ],
)
def test_a_question_of_how_or_when_an_event_took_place_rests_on_the_event(
    text: str, said: str, subject: tuple[str, ...], event: str
) -> None:
    premise = premise_of(text)
    assert (premise.text, premise.subject, premise.event) == (said, subject, (event,))
    assert not premise.clause  # said back as it is named: "no memory records the crash …"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        # Said of a thing, or with an object, "start" and "end" tell what happened to it.
        ("When did the Kafka cluster start?", "the Kafka cluster started"),
        ("When did Caroline start the painting class?", "Caroline started the painting class"),
    ],
)
def test_a_start_of_a_thing_is_not_an_event_phrase(text: str, said: str) -> None:
    assert premise_of(text).text == said


def test_the_note_on_an_event_phrase_names_it_as_asked() -> None:
    premise = premise_of("How did the crash of the Kafka cluster happen?")
    ranked = facts("The Kafka cluster runs three brokers in the ops VPC.")
    flag = judge(premise, ranked, SIMILAR)
    assert isinstance(flag, Flagged)
    assert flag.line == "Note: no memory records the crash of the Kafka cluster."
    record = facts("The Kafka cluster crashed on Monday when its disks filled up.")
    assert judge(premise, record, SIMILAR) == "supported"


@pytest.mark.parametrize(
    "text",
    [
        "Should we use Redis for caching in Newton?",
        "What is the capital of France?",
        "List the open incidents.",
        "Why did it crash?",  # whose crash, the words do not say
        "What caused the outage?",
        "How do I fix the login bug?",  # a way to do it, not something that happened
        "How does the billing service retry failed payments?",
        "When did the outage happen?",  # whose outage, the words do not say
        "When did the breach take place?",
    ],
)
def test_an_input_without_a_checkable_premise_has_none(text: str) -> None:
    assert presuppositions(text) == []
