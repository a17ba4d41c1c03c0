"""When a written fact is the same fact as one already known. Pure."""

from app.memories.duplicates import same_fact


def test_the_same_words_are_the_same_fact_whatever_the_case_and_punctuation() -> None:
    assert same_fact("Redis adds a separate service.", "redis adds a separate SERVICE")


def test_a_different_number_is_a_different_fact() -> None:
    assert not same_fact("The p95 latency is 20 ms.", "The p95 latency is 25 ms.")


def test_a_fact_with_more_to_say_is_a_different_fact() -> None:
    assert not same_fact("Redis is our cache.", "Redis is our cache for session data only.")
