"""Frame selection with the real local embedder, custom frames, and the example cache."""

import numpy as np
import pytest
from pydantic import JsonValue

from app.context.frames.catalogue import BUILTIN_FRAMES
from app.context.frames.choice import (
    FrameSelector,
    cue_matches,
    effective_frames,
    frame_from_definition,
)
from app.context.types import Vector
from app.providers.container import Providers
from app.providers.embeddings import Embedder, GuardedEmbedder, LocalEmbedder
from tests.counting_embedder import CountingEmbedder


async def vector_of(embedder: Embedder, text: str) -> Vector:
    (vector,) = await embedder.embed([text])
    return np.asarray(vector, dtype=np.float32)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Should we use Redis or Memcached for caching?", "decision"),
        ("Traceback: KeyError in worker.py line 12, the job crashes", "debug"),
        ("Implement a CSV export endpoint", "task"),
        ("When did Caroline go to the support group?", "question"),
        ("hey, good morning!", "conversation"),
    ],
)
async def test_input_selects_frame(providers: Providers, text: str, expected: str) -> None:
    selector = FrameSelector(providers.embedder)
    vector = await vector_of(providers.embedder, text)

    choice = await selector.choose(text, vector, BUILTIN_FRAMES, None)

    assert choice.frame.name == expected
    assert choice.source == "selected"
    assert choice.confidence > 0.5
    assert set(choice.scores) == set(BUILTIN_FRAMES)
    assert max(choice.scores, key=choice.scores.__getitem__) == expected


async def test_cues_alone_select_when_no_vector(providers: Providers) -> None:
    selector = FrameSelector(providers.embedder)

    choice = await selector.choose(
        "Traceback: KeyError, the job crashes", None, BUILTIN_FRAMES, None
    )

    assert choice.frame.name == "debug"
    assert 0 < choice.confidence < 1


async def test_requested_frame_wins(providers: Providers) -> None:
    selector = FrameSelector(providers.embedder)
    text = "hey, good morning!"
    vector = await vector_of(providers.embedder, text)

    choice = await selector.choose(text, vector, BUILTIN_FRAMES, "debug")

    assert choice.frame is BUILTIN_FRAMES["debug"]
    assert choice.confidence == 1.0
    assert choice.source == "requested"
    with pytest.raises(KeyError):
        await selector.choose(text, vector, BUILTIN_FRAMES, "nonexistent")


async def test_examples_are_embedded_once(providers: Providers) -> None:
    model = providers.embedder.inner
    assert isinstance(model, LocalEmbedder)
    counting = CountingEmbedder(model)
    selector = FrameSelector(GuardedEmbedder(counting, providers.embedder.breaker))
    text = "Should we use Redis or Memcached for caching?"
    vector = await vector_of(providers.embedder, text)

    await selector.warm(BUILTIN_FRAMES)
    first = await selector.choose(text, vector, BUILTIN_FRAMES, None)
    second = await selector.choose(text, vector, BUILTIN_FRAMES, None)

    all_examples = {e for frame in BUILTIN_FRAMES.values() for e in frame.examples}
    assert len(counting.calls) == 1
    assert set(counting.calls[0]) == all_examples
    assert first == second

    frames = effective_frames({"incident": {"examples": ["Production is down for all users"]}})
    await selector.choose("The site is down", None, frames, None)  # no vector: no embedding
    await selector.choose(text, vector, frames, None)
    await selector.choose(text, vector, frames, None)
    assert counting.calls[1:] == [["Production is down for all users"]]


def test_custom_definition_overrides_builtin() -> None:
    frame = frame_from_definition("decision", {"default_budget": 4000, "priorities": {"fact": 0.9}})

    builtin = BUILTIN_FRAMES["decision"]
    assert frame.default_budget == 4000
    assert frame.priorities == {"decision": 1.0, "procedure": 0.8, "fact": 0.9, "episode": 0.4}
    assert frame.description == builtin.description
    assert frame.questions == builtin.questions
    assert frame.examples == builtin.examples


def test_new_custom_frame_falls_back_to_question() -> None:
    frame = frame_from_definition(
        "incident", {"description": "Production incident.", "cues": ["Outage", "down"]}
    )

    question = BUILTIN_FRAMES["question"]
    assert frame.description == "Production incident."
    assert frame.questions == question.questions
    assert frame.priorities == question.priorities
    assert frame.default_budget == question.default_budget
    assert frame.cues == ("outage", "down")
    assert frame.examples == ()  # never a clone of `question` in selection


def test_effective_frames_extend_and_override() -> None:
    frames = effective_frames(
        {
            "debug": {"description": "Debug the payment service."},
            "incident": {"description": "Production incident.", "examples": ["site is down"]},
        }
    )

    assert set(frames) == {*BUILTIN_FRAMES, "incident"}
    assert frames["debug"].description == "Debug the payment service."
    assert frames["debug"].cues == BUILTIN_FRAMES["debug"].cues
    assert frames["question"] is BUILTIN_FRAMES["question"]
    assert BUILTIN_FRAMES["debug"].description != "Debug the payment service."


async def test_custom_frame_is_selected(providers: Providers) -> None:
    frames = effective_frames(
        {
            "incident": {
                "description": "Production incident: stabilise first, investigate later.",
                "examples": [
                    "The website is down for all customers",
                    "Production outage, checkout returns 503",
                    "Pager alert: database is unreachable",
                ],
                "cues": ["outage", "down", "pager"],
            }
        }
    )
    selector = FrameSelector(providers.embedder)
    text = "Outage: the site is down for every customer"
    vector = await vector_of(providers.embedder, text)

    choice = await selector.choose(text, vector, frames, None)

    assert choice.frame.name == "incident"


@pytest.mark.parametrize(
    "definition",
    [
        {"priorities": {"memory": 0.5}},
        {"priorities": {"fact": 1.5}},
        {"default_budget": 0},
        {"default_budget": "big"},
        {"examples": "not a list"},
        {"description": ""},
        {"colour": "blue"},
    ],
)
def test_invalid_definition_is_rejected(definition: dict[str, JsonValue]) -> None:
    with pytest.raises(ValueError, match="frame 'custom'"):
        frame_from_definition("custom", definition)


def test_cues_match_whole_words_and_phrases() -> None:
    cues = ("error", "stack trace", "should we", "?", "vs")

    assert cue_matches("Should we ship? Stack trace attached", cues) == (
        "stack trace",
        "should we",
    )
    assert cue_matches("KeyError vs. TypeError?", cues) == ("?", "vs")
    assert cue_matches("terrors", cues) == ()
