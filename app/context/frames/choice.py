"""Frames: the built-in ways of approaching an input, agents' custom frames, and selection."""

import asyncio
import functools
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import cast

import numpy as np
import structlog
from pydantic import JsonValue

from app.context.frames.catalogue import BUILTIN_FRAMES
from app.context.types import FLEXIBLE_KINDS, FlexibleKind, Frame, FrameChoice, Vector
from app.providers.embeddings import GuardedEmbedder
from app.providers.errors import ProviderError

log = structlog.get_logger(__name__)

FALLBACK_FRAME = "question"  # fills a custom frame's missing keys and wins ties
CUE_BONUS = 0.08
CUE_BONUS_CAP = 0.24
TEMPERATURE = 0.05
_DEFINITION_KEYS = frozenset(
    {"description", "questions", "priorities", "default_budget", "examples", "cues", "recency"}
)


def frame_from_definition(name: str, definition: Mapping[str, JsonValue]) -> Frame:
    """A frame from a stored custom-frame JSON; missing keys come from a built-in frame."""
    unknown = sorted(set(definition) - _DEFINITION_KEYS)
    if unknown:
        raise ValueError(f"frame {name!r}: unknown keys {unknown}")
    base = BUILTIN_FRAMES.get(name, BUILTIN_FRAMES[FALLBACK_FRAME])
    own = name in BUILTIN_FRAMES  # a new frame is chosen by its own examples and cues only
    description = definition.get("description", base.description)
    if not isinstance(description, str) or not description.strip():
        raise ValueError(f"frame {name!r}: description must be a non-empty string")
    budget = definition.get("default_budget", base.default_budget)
    if isinstance(budget, bool) or not isinstance(budget, int) or budget <= 0:
        raise ValueError(f"frame {name!r}: default_budget must be a positive integer")
    recency = definition.get("recency", base.recency)
    if isinstance(recency, bool) or not isinstance(recency, int | float) or not 0 <= recency <= 1:
        raise ValueError(f"frame {name!r}: recency must be a number from 0 to 1")
    return Frame(
        name=name,
        description=description.strip(),
        questions=_strings(name, definition, "questions", base.questions),
        priorities=_priorities(name, definition.get("priorities"), base.priorities),
        default_budget=budget,
        examples=_strings(name, definition, "examples", base.examples if own else ()),
        cues=tuple(c.lower() for c in _strings(name, definition, "cues", base.cues if own else ())),
        recency=float(recency),
    )


def effective_frames(custom: Mapping[str, JsonValue]) -> dict[str, Frame]:
    """The built-in frames, overridden and extended by an agent's custom frame definitions."""
    frames = dict(BUILTIN_FRAMES)
    for name, definition in custom.items():
        if not isinstance(definition, dict):
            raise ValueError(f"frame {name!r}: definition must be an object")
        frames[name] = frame_from_definition(name, definition)
    return frames


def _strings(
    name: str, definition: Mapping[str, JsonValue], key: str, default: tuple[str, ...]
) -> tuple[str, ...]:
    if key not in definition:
        return default
    value = definition[key]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"frame {name!r}: {key} must be a list of strings")
    return tuple(s for s in (cast(str, v).strip() for v in value) if s)


def _priorities(
    name: str, value: JsonValue, default: Mapping[FlexibleKind, float]
) -> dict[FlexibleKind, float]:
    priorities = dict(default)
    if value is None:
        return priorities
    if not isinstance(value, dict):
        raise ValueError(f"frame {name!r}: priorities must be an object of kind to weight")
    for kind, weight in value.items():
        if kind not in FLEXIBLE_KINDS:
            raise ValueError(f"frame {name!r}: unknown memory kind {kind!r} in priorities")
        if isinstance(weight, bool) or not isinstance(weight, int | float) or not 0 <= weight <= 1:
            raise ValueError(f"frame {name!r}: priority of {kind} must be a number in 0..1")
        priorities[kind] = float(weight)
    return priorities


@functools.lru_cache(maxsize=1024)
def _cue_pattern(cue: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(cue)}(?!\w)", re.IGNORECASE)


def cue_matches(text: str, cues: Sequence[str]) -> tuple[str, ...]:
    """The distinct cues in text: whole words or phrases; a cue without letters ends the text."""
    found: list[str] = []
    stripped, lowered = text.rstrip(), text.lower()
    for cue in dict.fromkeys(c.lower() for c in cues):
        if not any(ch.isalnum() for ch in cue):
            hit = bool(cue) and stripped.endswith(cue)
        else:  # the substring test is cheap and rules out most cues before the pattern
            hit = cue in lowered and _cue_pattern(cue).search(text) is not None
        if hit:
            found.append(cue)
    return tuple(found)


def cue_bonus(text: str, cues: Sequence[str]) -> float:
    """CUE_BONUS per distinct cue found, capped at CUE_BONUS_CAP."""
    return min(CUE_BONUS * len(cue_matches(text, cues)), CUE_BONUS_CAP)


def confidence_of(
    scores: Mapping[str, float], best: str, temperature: float = TEMPERATURE
) -> float:
    """Softmax of the scores at the best frame, rounded to 3 decimals."""
    top = scores[best]
    total = sum(math.exp((score - top) / temperature) for score in scores.values())
    return round(1.0 / total, 3)


def best_frame(scores: Mapping[str, float]) -> str:
    """The highest score; ties go to the fallback frame, then to the first name."""
    return min(scores, key=lambda name: (-scores[name], name != FALLBACK_FRAME, name))


class FrameSelector:
    """Picks a frame from the input; caches the frames' example vectors for the process."""

    def __init__(self, embedder: GuardedEmbedder, deadline_seconds: float | None = None) -> None:
        self._embedder = embedder
        self._deadline = deadline_seconds  # how long a build waits for examples to be embedded
        self._vectors: dict[str, Vector] = {}
        self._matrices: dict[tuple[str, ...], Vector] = {}
        self._lock = asyncio.Lock()

    async def warm(self, frames: Mapping[str, Frame], max_pause_seconds: float = 30.0) -> None:
        """Embed every frame's examples now so builds do not wait for it; while the provider
        is unavailable, try again after a pause that doubles up to `max_pause_seconds`."""
        pause = 1.0
        while not await self._embed_examples(frames.values(), wait=True):
            await asyncio.sleep(pause)
            pause = min(pause * 2, max_pause_seconds)

    async def choose(
        self,
        text: str,
        input_vector: Vector | None,
        frames: Mapping[str, Frame],
        requested: str | None,
    ) -> FrameChoice:
        """The requested frame, else the one whose examples and cues best match the input."""
        if requested is not None:
            return FrameChoice(frames[requested], 1.0, {}, "requested")
        if not frames:
            raise ValueError("no frames to choose from")
        similarity = dict.fromkeys(frames, 0.0)
        if input_vector is not None and await self._embed_examples(frames.values(), wait=False):
            for name, frame in frames.items():
                matrix = self._matrix(frame.examples)
                if len(matrix):
                    similarity[name] = float(np.max(matrix @ input_vector))
        scores = {
            name: round(similarity[name] + cue_bonus(text, frame.cues), 4)
            for name, frame in frames.items()
        }
        best = best_frame(scores)
        return FrameChoice(frames[best], confidence_of(scores, best), scores, "selected")

    async def _embed_examples(self, frames: Iterable[Frame], *, wait: bool) -> bool:
        """Embed the examples not cached yet in one call; False when the embedder fails.

        A build (`wait` false) gives the provider its deadline and does not queue behind an
        embedding under way: it goes on with the cue words alone.
        """
        examples = [e for f in frames for e in f.examples]
        if all(e in self._vectors for e in examples):
            return True
        if not wait and self._lock.locked():
            return False
        async with self._lock:
            missing = list(dict.fromkeys(e for e in examples if e not in self._vectors))
            if not missing:
                return True
            try:
                vectors = await self._embedder.embed_queries(
                    missing, deadline=None if wait else self._deadline
                )
            except ProviderError as exc:
                log.warning("context.frame_examples_unavailable", error=str(exc))
                return False
            for example, vector in zip(missing, vectors, strict=True):
                self._vectors[example] = np.asarray(vector, dtype=np.float32)
        return True

    def _matrix(self, examples: tuple[str, ...]) -> Vector:
        matrix = self._matrices.get(examples)
        if matrix is None:
            rows = [self._vectors[e] for e in examples]
            matrix = np.stack(rows) if rows else np.zeros((0, 0), dtype=np.float32)
            self._matrices[examples] = matrix
        return matrix
