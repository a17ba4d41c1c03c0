"""What a process keeps of each agent's corpus between builds: its size and its frequent words'
counts, for a minute, for a bounded number of agents."""

import uuid

from app.context.retrieval.corpus import CorpusStats


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_frequent_words_are_remembered_for_a_minute() -> None:
    clock = Clock()
    stats = CorpusStats(clock=clock)
    agent = uuid.uuid4()
    stats.remember_words(agent, {"deploy": 600, "canari": 50, "zeppelin": 0, "hangar": 49})
    assert stats.known_words(agent) == {"deploy": 600, "canari": 50}  # rarer words: recounted
    clock.now += 30
    stats.remember_words(agent, {"stage": 120})
    assert stats.known_words(agent) == {"deploy": 600, "canari": 50, "stage": 120}
    assert stats.known_words(uuid.uuid4()) == {}
    clock.now += 31  # the agent's words are a minute old: everything is counted again
    assert stats.known_words(agent) == {}


def test_sizes_are_kept_a_minute_and_for_the_most_recent_agents_only() -> None:
    clock = Clock()
    stats = CorpusStats(clock=clock, max_agents=2)
    first, second, third = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    stats.remember_size(first, 10)
    stats.remember_size(second, 20)
    assert stats.size(first) == 10
    stats.remember_size(first, 11)  # used again: the least recent is now `second`
    stats.remember_size(third, 30)
    assert (stats.size(first), stats.size(second), stats.size(third)) == (11, None, 30)
    clock.now += 61
    assert stats.size(first) is None  # counted again after a minute
