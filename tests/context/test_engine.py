"""What a process keeps between builds: the agents' frequent words, for a minute."""

import time
import uuid

import pytest

from app.context.engine import ContextEngine
from app.core.config import ContextSettings
from app.providers.container import Providers


def test_frequent_words_are_remembered_for_a_minute(
    providers: Providers, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = [1000.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    engine = ContextEngine.create(providers, ContextSettings())
    agent = uuid.uuid4()
    engine.remember_words(agent, {"deploy": 600, "canari": 50, "zeppelin": 0, "hangar": 49})
    assert engine.known_words(agent) == {"deploy": 600, "canari": 50}  # rarer words: recounted
    now[0] += 30
    engine.remember_words(agent, {"stage": 120})
    assert engine.known_words(agent) == {"deploy": 600, "canari": 50, "stage": 120}
    assert engine.known_words(uuid.uuid4()) == {}
    now[0] += 31  # the agent's entry is a minute old: everything is counted again
    assert engine.known_words(agent) == {}
