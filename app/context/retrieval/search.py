"""The search step: the input's words and their rarity, the nearest memories by meaning, those
of the period the input names, and the episodes around the strongest hits, for one agent.

A build runs it in two halves: the words while the input is embedded (`match_words`), then
everything that needs the vector (`finish`). The statements are in `search_sql.py`; the agent's
corpus figures (its size, its frequent words' counts) are kept in `CorpusStats`.
"""

import re
import uuid
from collections.abc import Sequence
from typing import Any

import numpy as np
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.context.retrieval.corpus import CorpusStats
from app.context.retrieval.link_sql import linked
from app.context.retrieval.search_sql import (
    MAX_TERMS,
    SearchSpec,
    WordHits,
    meaning_and_neighbours,
    word_reference,
    words_and_matches,
)
from app.context.retrieval.search_sql import params as sql_params
from app.context.types import Candidate, Link, Neighbours, Seeds, Vector
from app.core.context_config import LinkSettings
from app.memories.models import Memory

_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def vector_search_settings(vector_candidates: int) -> dict[str, str]:
    """Session settings of every connection for the HNSW index (an exact scan ignores them).
    The index holds every agent's memories: it keeps scanning the graph until enough rows pass
    the agent's filter (pgvector >= 0.8), and looks at as many as a build wants at least."""
    return {
        "hnsw.iterative_scan": "relaxed_order",
        "hnsw.ef_search": str(max(vector_candidates, 40)),
    }


class SearchRepository:
    """The search's SQL, for one session, with the process's corpus figures."""

    def __init__(self, session: AsyncSession, stats: CorpusStats) -> None:
        self.session = session
        self.stats = stats

    async def agent_size(self, agent_id: uuid.UUID) -> int:
        """How many memories the agent has (counted at most once a minute)."""
        size = self.stats.size(agent_id)
        if size is None:
            count = await self.session.scalar(
                select(func.count()).select_from(Memory).where(Memory.agent_id == agent_id)
            )
            size = int(count or 0)
            self.stats.remember_size(agent_id, size)
        return size

    async def match_words(self, spec: SearchSpec) -> WordHits:
        """The memories holding the input's words, each weighed by its rarity, and the words'
        counts, in one round trip."""
        if not _WORD.search(spec.words):
            return WordHits([], [], [], frozenset())
        known = self.stats.known_words(spec.agent_id)
        bound = sql_params(spec) | {
            "input": spec.words,
            "known": list(known),
            "known_df": list(known.values()),
            "common": spec.common_word_memories,
            "max_terms": MAX_TERMS,
            "size": spec.corpus_size,
            "text_limit": spec.text_limit,
        }
        rows = (await self.session.execute(words_and_matches(spec), bound)).all()
        words = [row for row in rows if row[0] is not None]
        frequencies = {row[0]: int(row[1]) for row in words}
        self.stats.remember_words(spec.agent_id, frequencies)
        found = [row for row in rows if row[0] is None]
        return WordHits(
            [tuple(row[5:]) for row in found],
            [row[3] for row in found],
            [row[4] for row in found],
            frozenset(frequencies),
            word_reference([row[2] for row in words if row[2] is not None], spec),
        )

    async def finish(
        self,
        spec: SearchSpec,
        words: WordHits,
        vector: Vector | None,
        neighbours: Neighbours,
        rescore: Vector | None = None,
    ) -> list[Candidate]:
        """The nearest memories by meaning, those of the period the input names and the
        episodes around the strongest episode hits, merged with the word matches; each with its
        similarity to the input (by the rescoring model, given its vector of the input). One
        statement: each round trip costs a build about a millisecond."""
        found = _Merged(list(words.memories), list(words.lexical), list(words.excerpts))
        statement = meaning_and_neighbours(spec, neighbours, words, vector, rescore)
        if statement is not None:
            rows = await self.session.execute(*statement)
            found.merge([(hit, parent, tuple(memory)) for hit, parent, *memory in rows])
        return _candidates(found, vector, rescore)

    async def linked(
        self,
        spec: SearchSpec,
        seeds: Seeds,
        known: Sequence[uuid.UUID],
        vector: Vector | None,
        settings: LinkSettings,
        rescore: Vector | None = None,
    ) -> list[tuple[uuid.UUID, Link, Candidate | None]]:
        """The memories tied to the seeds by an anchor (`link_sql.py`), strongest first, each
        with its link and, when not among the `known` candidates, as a new candidate."""
        common = self.stats.common_anchors(spec.agent_id)
        if not seeds or (seeds.anchors is not None and seeds.anchors <= common):
            return []  # nothing they hold can tie anything
        bound = sql_params(spec) | {
            "seeds": [memory_id for memory_id, _strength in seeds.hits],
            "strengths": [strength for _memory_id, strength in seeds.hits],
            "input_strength": settings.input_strength,
            "input_anchors": seeds.input_anchors,
            "max_memories": settings.max_anchor_memories,
            "limit": settings.limit,
            "known": list(known),
            "common": list(common),
        }
        rows = (await self.session.execute(linked(spec), bound)).all()
        self.stats.remember_common_anchors(spec.agent_id, rows[0][0] or ())
        tied = [row[1:] for row in rows if row[1] is not None]
        fresh = [tuple(row[4:]) for row in tied if row[4] is not None]
        made = iter(_candidates(_Merged(fresh, [0.0] * len(fresh), []), vector, rescore))
        return [
            (row[0], Link(float(row[1]), row[2], row[3]), next(made) if row[4] else None)
            for row in tied
        ]


class _Merged:
    """The rows found, once each: the words' matches first, then the rest."""

    def __init__(
        self, memories: list[tuple[Any, ...]], lexical: list[float], excerpts: list[str | None]
    ) -> None:
        self.memories = memories
        self.lexical: list[float | None] = list(lexical)
        self.excerpts = excerpts + [None] * (len(memories) - len(excerpts))
        self.parents: list[uuid.UUID | None] = [None] * len(memories)

    def merge(self, rows: Sequence[tuple[uuid.UUID, uuid.UUID | None, tuple[Any, ...]]]) -> None:
        """Rows of (id, neighbour of, columns) from `meaning_and_neighbours`."""
        neighbours = []
        for hit, parent, memory in rows:
            if parent is not None:
                neighbours.append((hit, parent, memory))
            elif memory[0] is not None:  # a row the words did not find
                self._add(memory, None)
        # A neighbour the search found too keeps its own scores and learns whose neighbour it
        # is; one next to two hits is the first one's.
        position = {memory[0]: index for index, memory in enumerate(self.memories)}
        for hit, parent, memory in neighbours:
            index = position.get(hit)
            if index is None and memory[0] is not None:
                position[hit] = len(self.memories)
                self._add(memory, parent)
            elif index is not None and self.parents[index] is None:
                self.parents[index] = parent

    def _add(self, memory: tuple[Any, ...], parent: uuid.UUID | None) -> None:
        self.memories.append(memory)
        self.lexical.append(None)
        self.excerpts.append(None)
        self.parents.append(parent)


def _similarities(embeddings: Sequence[Vector | None], vector: Vector | None) -> list[float | None]:
    """Cosine similarity of each embedding to the input's vector (None where either is missing,
    or of another size: a vector of a model no longer set); the embedders return L2-normalised
    vectors, so it is their dot product."""
    found: list[float | None] = [None] * len(embeddings)
    if vector is None:
        return found
    present = [
        (i, e) for i, e in enumerate(embeddings) if e is not None and e.shape == vector.shape
    ]
    if not present:
        return found
    cosines = np.stack([e for _i, e in present]) @ vector
    for (i, _e), cosine in zip(present, cosines.tolist(), strict=True):
        found[i] = cosine
    return found


def _candidates(
    found: _Merged, vector: Vector | None, rescore: Vector | None = None
) -> list[Candidate]:
    """Candidates from the rows found, with what each query added. Their similarity is the
    rescoring model's where both it and the memory have its vector (a memory written moments
    ago may not yet), the search model's otherwise."""
    embeddings: list[Vector | None] = [memory[-2] for memory in found.memories]  # float32
    semantic = _similarities(embeddings, vector)
    if rescore is not None:
        stronger = _similarities([memory[-1] for memory in found.memories], rescore)
        semantic = [s if s is not None else w for s, w in zip(stronger, semantic, strict=True)]
    candidates = []
    for i, memory in enumerate(found.memories):
        (memory_id, kind, micro, summary, occurred_at, seq, confidence, outcome, usage, state,
         title, effectiveness, rank_factor, anchors, _embedding, _rescore) = memory  # fmt: skip
        candidates.append(
            Candidate(
                memory_id=memory_id,
                kind=kind,
                micro=micro,
                summary=summary,
                semantic=semantic[i],
                lexical=float(found.lexical[i] or 0.0),
                occurred_at=occurred_at,
                seq=seq,
                confidence=confidence,
                outcome=outcome,
                usage=int(usage),
                state=state,
                title=title,
                effectiveness=effectiveness,
                embedding=embeddings[i],
                neighbour_of=found.parents[i],
                excerpt=found.excerpts[i],
                rank_factor=rank_factor,
                anchors=frozenset(anchors or ()),
            )
        )
    return candidates
