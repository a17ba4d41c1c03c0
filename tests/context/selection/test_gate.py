"""The relevance gate: candidates judged against the build's other candidates. Pure."""

import dataclasses

from app.context.selection.gate import Gate, admissions, strongest
from app.context.selection.ranking import rank
from app.context.types import Candidate
from tests.context.builders import FRAME, NOW, SETTINGS, candidate, ranked_by_settings


def _passing(
    candidates: list[Candidate], gate: Gate | None = None, word_reference: float = 0.0
) -> dict[str, str]:
    """Why each candidate that may take a place may, by its micro line."""
    ranked = ranked_by_settings(candidates, word_reference)
    verdicts = admissions(ranked, gate or Gate())
    return {s.candidate.micro: why for s, why in zip(ranked, verdicts, strict=True) if why}


def test_a_memory_far_less_similar_than_the_best_stays_out() -> None:
    facts = [
        candidate("fact", "Redis adds a service to run.", "redis", 0.6),
        candidate("fact", "Postgres has UNLOGGED tables.", "unlogged", 0.35),
        candidate("fact", "The team meets on Mondays.", "monday", 0.25),
    ]
    # 0.25 passes the absolute floor (0.2) but is under half the best (0.3).
    assert _passing(facts) == {"redis": "meaning", "unlogged": "meaning"}


def test_a_weak_word_match_is_not_enough_but_a_strong_one_is() -> None:
    weak = candidate("fact", "We use tabs.", "tabs", 0.15)
    strong = candidate("fact", "Redis caching is off.", "caching", 0.05)
    unembedded = candidate("fact", "Redis caching is on.", "on", 0.0)
    unembedded.semantic = None  # written a moment ago: found by its words alone
    best = candidate("fact", "Redis adds a service to run.", "redis", 0.6)
    for memory, share in [(weak, 0.2), (strong, 0.8), (unembedded, 0.8), (best, 1.0)]:
        memory.lexical = share
    assert _passing([weak, strong, unembedded, best]) == {
        "redis": "meaning",
        "caching": "words",
        "on": "words",
    }


def test_one_middling_word_is_no_full_word_match_when_the_inputs_rarer_words_are_missing() -> None:
    # "Why did shoppers get a security warning one night?": the best word match holds "night"
    # alone (weight 2.0), while the input's two rarest words the agent's memories hold weigh
    # 5.0 together. Measured against the best match only, it is a full word match.
    nightly = candidate("decision", "Nightly reports run on the replica.", "nightly", 0.1)
    nightly.lexical = 2.0
    cert = candidate("episode", "The storefront's certificate expired.", "cert", 0.3)
    assert _passing([nightly, cert]) == {"nightly": "words", "cert": "meaning"}
    assert _passing([nightly, cert], word_reference=5.0) == {"cert": "meaning"}
    # A memory holding those rarer words is a full match again, and the one-word one is not.
    both = candidate("fact", "Security warnings go to the on-call.", "warnings", 0.1)
    both.lexical = 5.0
    assert _passing([nightly, cert, both], word_reference=5.0) == {
        "cert": "meaning",
        "warnings": "words",
    }


def test_the_one_memory_that_stands_out_among_its_kind_is_in() -> None:
    noise = [
        candidate("decision", f"Bought seedlings {i}.", f"seedlings {i}", 0.02 + (i % 3) / 100)
        for i in range(30)
    ]
    related = candidate("decision", "Chose pgvector over Qdrant.", "pgvector", 0.15)
    best = candidate("fact", "Redis adds a service to run.", "redis", 0.6)
    assert _passing([*noise, related, best]) == {"pgvector": "standout", "redis": "meaning"}
    # Without the stand-out rule it would be under the floor like the noise.
    strict = dataclasses.replace(Gate(), standout_sigmas=99.0)
    assert _passing([*noise, related, best], strict) == {"redis": "meaning"}


def test_the_most_similar_procedure_is_in_when_the_frame_calls_for_procedures() -> None:
    best = candidate("fact", "Redis adds a service to run.", "redis", 0.7)
    procedure = candidate("procedure", "Architecture Decision.", "architecture", 0.25)
    other = candidate("procedure", "Deploy checklist.", "deploy", 0.22)
    # The best of their kinds too, as far from the input, but each about its own case.
    decision = candidate("decision", "Chose Loki for the logs.", "loki", 0.25)
    episode = candidate("episode", "The CDN outage in May.", "cdn", 0.25)
    found = [best, procedure, other, decision, episode]
    assert _passing(found) == {"redis": "meaning", "architecture": "kind_best"}
    # A question calls for facts and past events: no procedure comes in for being the nearest.
    question = dataclasses.replace(FRAME, priorities={"fact": 1.0, "procedure": 0.4})
    ranked = rank(found, question, NOW, SETTINGS.weights, SETTINGS.half_life_days, None, 0.0)
    verdicts = admissions(ranked, Gate())
    assert [s.candidate.micro for s, why in zip(ranked, verdicts, strict=True) if why] == ["redis"]


def test_the_strongest_hits_are_the_first_let_in_and_the_first_of_each_kind() -> None:
    facts = [
        candidate("fact", f"Fact {n} about Redis.", f"fact {n}", 0.6 - n / 100) for n in range(6)
    ]
    procedure = candidate("procedure", "How to choose a cache.", "procedure", 0.45)
    far = candidate("episode", "A trip to Lisbon.", "far", 0.05)  # the gate keeps it out
    ranked = ranked_by_settings([*facts, procedure, far])
    hits = strongest(ranked, admissions(ranked, Gate()), 2)
    assert [hit.micro for hit in hits] == ["fact 0", "fact 1", "procedure"]
