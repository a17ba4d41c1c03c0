"""Which censors a context shows: by trigger, by how they stand out (meaning, words, the frame, the
strongest hits that speak of them), BLOCK first. Pure."""

import uuid

import numpy as np

from app.context.selection.constraints import choose_censors
from app.context.types import Censor
from tests.context.builders import FRAME, candidate


def _unit(*values: float) -> np.ndarray:
    vector = np.array(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def censor(pattern: str, terms: set[str], vector: np.ndarray, action: str = "warn") -> Censor:
    return Censor(
        uuid.uuid4(), action, pattern, "because", terms=frozenset(terms), embedding=vector
    )


INPUT = _unit(1, 0, 0)
UNRELATED = [
    censor(f"Don't do unrelated thing {i}", {"unrel", f"thing{i}"}, _unit(0.05 * i, 1, 0))
    for i in range(8)
]


def test_a_censor_whose_trigger_the_input_holds_is_always_in() -> None:
    push = censor("Don't push to main", {"push", "main"}, _unit(0, 0, 1))
    scored = choose_censors([*UNRELATED, push], INPUT, frozenset({"push", "main", "fix"}), FRAME)
    assert (scored[0].censor, scored[0].reason) == (push, "trigger")
    assert [s.reason for s in scored[1:]] == ["score"] * len(UNRELATED)


def test_a_censor_that_stands_out_by_meaning_is_in_and_the_rest_are_out() -> None:
    near = censor("Don't add infrastructure lightly", {"infrastructur"}, _unit(1, 0.3, 0))
    scored = choose_censors([*UNRELATED, near], INPUT, frozenset({"redis"}), FRAME)
    chosen = [s.censor for s in scored if s.chosen]
    assert chosen == [near]
    assert all(s.relevance < scored[0].relevance for s in scored[1:])


def test_block_goes_before_warn_among_equals_and_the_order_is_the_same_every_time() -> None:
    vector = _unit(1, 0.2, 0)
    warn = censor("Don't skip the review", {"review"}, vector, "warn")
    block = censor("Don't skip the tests", {"test"}, vector, "block")
    first = choose_censors([*UNRELATED, warn, block], INPUT, frozenset(), FRAME)
    again = choose_censors([block, *UNRELATED, warn], INPUT, frozenset(), FRAME)
    assert [s.censor for s in first[:2]] == [block, warn]
    assert [s.censor for s in first] == [s.censor for s in again]


def test_when_none_stands_out_the_most_relevant_one_is_in() -> None:
    near = censor("Don't hire without a trial week", {"hire"}, _unit(0.225, 1, 0))
    # 0.22 similar: under the floor of those that stand out (0.25), but the most relevant.
    scored = choose_censors([*UNRELATED[:5], near], INPUT, frozenset({"onboard"}), FRAME)
    assert [s.censor for s in scored if s.chosen] == [near]
    far = censor("Don't hire without a trial week", {"hire"}, _unit(0.1, 1, 0))
    quiet = choose_censors([*UNRELATED[:4], far], INPUT, frozenset({"onboard"}), FRAME)
    assert not any(s.chosen for s in quiet)  # under 0.15: nothing may apply


def test_an_agent_with_a_handful_of_censors_sees_them_all() -> None:
    few = UNRELATED[:3]
    assert all(s.chosen for s in choose_censors(few, INPUT, frozenset(), FRAME))


COST = "Don't add infrastructure without evaluating operational cost"


def test_a_censor_a_strong_hit_speaks_of_is_in_though_the_input_names_none_of_its_words() -> None:
    cost = censor(COST, {"infrastructur"}, _unit(0.2, 0, 1), "block")
    procedure = candidate(
        "procedure", "Weigh the operational cost of adding infrastructure.", "Evaluate", 0.4
    )
    fact = candidate("fact", "Redis is an in-memory cache.", "Redis is a cache", 0.6)
    alone = choose_censors([*UNRELATED, cost], INPUT, frozenset({"redis"}), FRAME)
    assert cost not in [s.censor for s in alone if s.chosen]
    brought = choose_censors(
        [*UNRELATED, cost], INPUT, frozenset({"redis"}), FRAME, hits=[fact, procedure]
    )
    assert [(s.censor, s.reason) for s in brought if s.chosen] == [(cost, "relevant")]
    assert brought[0].hits > 0.5  # most of its words, in one hit


def test_one_word_a_hit_shares_with_a_censor_ties_nothing_nor_do_words_spread_over_hits() -> None:
    cost = censor(COST, {"infrastructur"}, _unit(0.2, 0, 1), "block")
    budget = candidate("fact", "The cloud budget is 4,000 a month; cost alerts at 80%.", "", 0.5)
    infra = candidate("fact", "The infrastructure team runs the clusters.", "", 0.5)
    for hits in ([budget], [budget, infra]):
        scored = choose_censors([*UNRELATED, cost], INPUT, frozenset(), FRAME, hits=hits)
        assert all(s.hits == 0 for s in scored)
