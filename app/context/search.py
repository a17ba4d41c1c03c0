"""SQL of the search: the input's words and their rarity, the nearest memories by meaning,
and the episodes around the strongest hits, for one agent."""

import json
import math
import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from pydantic import JsonValue
from sqlalchemy import TextualSelect, bindparam, func, select, text
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.types import Uuid

from app.context.periods import Period
from app.context.types import Candidate, FlexibleKind, Vector
from app.core.vector import VectorType
from app.memories.models import Memory

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_MAX_TERMS = 32  # of an input's words, at most this many are searched
# Retired procedures and facts proven wrong are not searched; superseded facts are, lower.
_SEARCHABLE = (
    "NOT (m.kind = 'fact' AND m.state = 'inactive') "
    "AND NOT (m.kind = 'procedure' AND m.state = 'retired')"
)
# What a candidate is made of, in the order `_candidates` unpacks it.
_COLUMNS = (
    "m.id, m.kind, m.state, m.micro, m.summary, m.occurred_at, m.seq, m.confidence, "
    "m.outcome, "
    "m.reference_count + COALESCE((m.fields->>'activation_count')::int, 0) AS usage, "
    "m.fields->>'name' AS title, m.superseded_by IS NOT NULL AS superseded, m.embedding"
)


@dataclass(frozen=True)
class SearchSpec:
    """One hybrid search: the agent, what to match, how many, and the filters."""

    agent_id: uuid.UUID
    words: str
    kinds: Sequence[FlexibleKind]
    metadata: dict[str, JsonValue] | None
    vector_limit: int
    text_limit: int
    exact: bool
    corpus_size: int  # the agent's memories, for the words' document frequencies
    common_word_memories: int  # words in more memories than this are not searched
    period: Period | None = None  # a day or month the input names: its memories are read too
    # The episodes just before and after the strongest episode hits come along: of this many
    # hits, this many on each side (0: none).
    neighbour_hits: int = 0
    neighbour_window: int = 0


@dataclass(frozen=True)
class WordMatches:
    """The memories the input's words found: the half of a search that needs no vector."""

    memories: list[tuple[Any, ...]]  # rows of `_COLUMNS`
    lexical: list[float]  # the summed rarity of the words each one holds
    text_ranks: list[int]


def _similarities(embeddings: Sequence[Vector | None], vector: Vector | None) -> list[float | None]:
    """Cosine similarity of each embedding to the input's vector (None where either is missing);
    both embedders return L2-normalised vectors, so it is their dot product."""
    present = [(i, e) for i, e in enumerate(embeddings) if e is not None]
    found: list[float | None] = [None] * len(embeddings)
    if vector is None or not present:
        return found
    cosines = np.stack([e for _i, e in present]) @ vector
    for (i, _e), cosine in zip(present, cosines.tolist(), strict=True):
        found[i] = cosine
    return found


def _candidates(
    memories: Sequence[Sequence[Any]],
    vector: Vector | None,
    *,
    lexical: Sequence[float | None] | None = None,
    text_ranks: Sequence[int | None] | None = None,
    vector_ranks: dict[uuid.UUID, int] | None = None,
    parents: Sequence[uuid.UUID | None] | None = None,
) -> list[Candidate]:
    """Candidates from rows of `_COLUMNS`, in its order, with what each query adds."""
    embeddings: list[Vector | None] = [memory[-1] for memory in memories]  # read as float32
    semantic = _similarities(embeddings, vector)
    found = []
    for i, memory in enumerate(memories):
        (memory_id, kind, state, micro, summary, occurred_at, seq, confidence, outcome, usage,
         title, superseded, _embedding) = memory  # fmt: skip
        found.append(
            Candidate(
                memory_id=memory_id,
                kind=kind,
                state=state,
                micro=micro,
                summary=summary,
                semantic=semantic[i],
                lexical=float(lexical[i] or 0.0) if lexical is not None else 0.0,
                vector_rank=vector_ranks.get(memory_id) if vector_ranks else None,
                text_rank=text_ranks[i] if text_ranks is not None else None,
                occurred_at=occurred_at,
                seq=seq,
                confidence=confidence,
                outcome=outcome,
                usage=int(usage),
                superseded=bool(superseded),
                embedding=embeddings[i],
                title=title,
                neighbour_of=parents[i] if parents is not None else None,
            )
        )
    return found


def _filters(spec: SearchSpec) -> str:
    filters = f"m.agent_id = :agent AND m.kind = ANY(:kinds) AND {_SEARCHABLE}"
    if spec.metadata:
        filters += " AND m.metadata @> CAST(:metadata AS jsonb)"
    return filters


def _params(spec: SearchSpec) -> dict[str, object]:
    params: dict[str, object] = {"agent": spec.agent_id, "kinds": list(spec.kinds)}
    if spec.metadata:
        params["metadata"] = json.dumps(spec.metadata)
    return params


def vector_search_settings(vector_candidates: int) -> dict[str, str]:
    """Session settings of every connection for the HNSW index (an exact scan ignores them).
    The index holds every agent's memories: it keeps scanning the graph until enough rows pass
    the agent's filter (pgvector >= 0.8), and looks at as many as a build wants at least."""
    return {
        "hnsw.iterative_scan": "relaxed_order",
        "hnsw.ef_search": str(max(vector_candidates, 40)),
    }


class SearchRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def agent_size(self, agent_id: uuid.UUID) -> int:
        """How many memories the agent has (picks exact or approximate vector search)."""
        count = await self.session.scalar(
            select(func.count()).select_from(Memory).where(Memory.agent_id == agent_id)
        )
        return int(count or 0)

    async def search(self, spec: SearchSpec, vector: Vector | None) -> list[Candidate]:
        """Vector and full-text search, scoped to the agent: the steps a build takes, in order
        (a build runs the first two while the input is embedded)."""
        frequencies = await self.word_frequencies(spec, {})
        return await self.finish_search(spec, await self.match_words(spec, frequencies), vector)

    async def match_words(self, spec: SearchSpec, frequencies: Mapping[str, int]) -> WordMatches:
        """The memories holding the input's words, best first. `frequencies`: the input's words
        and how many of the agent's memories hold each (`word_frequencies`)."""
        terms = [
            (word, math.log((spec.corpus_size - df + 0.5) / (df + 0.5) + 1))
            for word, df in frequencies.items()
            # A word in more than `common_word_memories` memories tells them apart no better
            # than a stop word: it is left out, which keeps the join short on big agents.
            if 1 <= df <= spec.common_word_memories
        ]
        if not terms:
            return WordMatches([], [], [])
        # BM25-style: each of the input's words weighs its inverse document frequency among the
        # agent's memories, so a name that is in every other turn counts for little and a rare
        # word for much.
        sql = (
            "WITH terms AS MATERIALIZED (SELECT quote_literal(t.word)::tsquery AS q, t.idf "
            "FROM unnest(CAST(:words AS text[]), CAST(:idf AS float8[])) AS t(word, idf)), "
            "txt AS (SELECT m.id, sum(terms.idf) AS lexical, row_number() OVER "
            "(ORDER BY sum(terms.idf) DESC, m.id) AS text_rank FROM memory m "
            f"JOIN terms ON m.search_document @@ terms.q WHERE {_filters(spec)} "
            "GROUP BY m.id ORDER BY lexical DESC, m.id LIMIT :text_limit) "
            f"SELECT txt.lexical, txt.text_rank, {_COLUMNS} FROM txt JOIN memory m ON m.id = txt.id"
        )
        params = _params(spec) | {
            "words": [word for word, _idf in terms],
            "idf": [idf for _word, idf in terms],
            "text_limit": spec.text_limit,
        }
        rows = (await self.session.execute(text(sql).columns(embedding=VectorType()), params)).all()
        return WordMatches(
            memories=[tuple(row[2:]) for row in rows],
            lexical=[row[0] for row in rows],
            text_ranks=[row[1] for row in rows],
        )

    async def word_frequencies(self, spec: SearchSpec, known: Mapping[str, int]) -> dict[str, int]:
        """Each word of the input, as PostgreSQL stems it (stop words dropped), and in how many
        of the agent's memories it is: counted up to `common_word_memories` + 1, or taken from
        `known`."""
        if not _WORD.search(spec.words):
            return {}
        sql = (
            "SELECT l.word, CASE WHEN l.word = ANY(:known) THEN NULL ELSE (SELECT count(*) "
            "FROM (SELECT 1 FROM memory d WHERE d.agent_id = :agent "
            "AND d.search_document @@ quote_literal(l.word)::tsquery LIMIT :common + 1) d) END "
            "FROM (SELECT DISTINCT lexeme AS word FROM unnest(to_tsvector('english', :words)) "
            "LIMIT :max_terms) l"
        )
        params = {
            "agent": spec.agent_id,
            "words": spec.words,
            "known": list(known),
            "common": spec.common_word_memories,
            "max_terms": _MAX_TERMS,
        }
        rows = await self.session.execute(text(sql), params)
        return {word: known[word] if df is None else int(df) for word, df in rows}

    async def finish_search(
        self, spec: SearchSpec, words: WordMatches, vector: Vector | None
    ) -> list[Candidate]:
        """The nearest memories by meaning, those of the period the input names and the
        episodes around the strongest episode hits, merged with the word matches; each with its
        similarity to the input. One statement: each round trip costs a build about a
        millisecond."""
        memories: list[tuple[Any, ...]] = list(words.memories)
        lexical: list[float | None] = list(words.lexical)
        text_ranks: list[int | None] = list(words.text_ranks)
        ranks: dict[uuid.UUID, int] = {}
        parents: list[uuid.UUID | None] = [None] * len(memories)
        found = _hits_and_neighbours(spec, words, vector)
        if found is not None:
            statement, params = found
            neighbours: list[tuple[uuid.UUID, uuid.UUID, tuple[Any, ...]]] = []
            for hit, rank, parent, *memory in await self.session.execute(statement, params):
                if parent is not None:
                    neighbours.append((hit, parent, tuple(memory)))
                    continue
                if rank is not None:
                    ranks[hit] = rank
                if memory[0] is not None:  # a row the words did not find
                    memories.append(tuple(memory))
                    lexical.append(None)
                    text_ranks.append(None)
                    parents.append(None)
            # A neighbour the search found too keeps its own scores and learns whose neighbour
            # it is; one next to two hits is the first one's.
            position = {memory[0]: index for index, memory in enumerate(memories)}
            for hit, parent, row in neighbours:
                index = position.get(hit)
                if index is None and row[0] is not None:
                    position[hit] = len(memories)
                    memories.append(row)
                    lexical.append(None)
                    text_ranks.append(None)
                    parents.append(parent)
                elif index is not None and parents[index] is None:
                    parents[index] = parent
        return _candidates(
            memories,
            vector,
            lexical=lexical,
            text_ranks=text_ranks,
            vector_ranks=ranks,
            parents=parents,
        )


# The episodes next to one strong hit `s`, before and after it on the agent's timeline.
_SIDE = (
    "(SELECT m.id FROM memory m WHERE m.agent_id = s.agent_id AND m.kind = 'episode' "
    "AND (m.occurred_at, m.seq) {op} (s.occurred_at, s.seq) "
    "ORDER BY m.occurred_at {dir}, m.seq {dir} LIMIT :window)"
)


def _hits_and_neighbours(
    spec: SearchSpec, words: WordMatches, vector: Vector | None
) -> tuple[TextualSelect, dict[str, object]] | None:
    """The statement of `finish_search`: rows of (id, vector rank, neighbour of, `_COLUMNS`),
    the columns empty for a memory the words found already. None when it has nothing to find."""
    ctes, sources = [], []
    if vector is not None:
        order = "(m.embedding <=> :q) + 0" if spec.exact else "m.embedding <=> :q"
        ctes.append(
            f"vec AS (SELECT m.id, row_number() OVER () AS vector_rank FROM ("
            f"SELECT m.id FROM memory m WHERE {_filters(spec)} AND m.embedding IS NOT NULL "
            f"ORDER BY {order} LIMIT :vector_limit) m)"
        )
        sources.append("SELECT id FROM vec")
    if spec.period is not None:
        # What happened in the period the input names, closest in meaning first.
        order = "m.embedding <=> :q" if vector is not None else "m.occurred_at"
        ctes.append(
            f"dated AS (SELECT m.id FROM memory m WHERE {_filters(spec)} "
            "AND m.occurred_at >= :from AND m.occurred_at < :to "
            f"ORDER BY {order} LIMIT :text_limit)"
        )
        sources.append("SELECT id FROM dated")
    # Episodes the words found, and how strongly, for picking the strongest hits.
    episodes = [
        (memory[0], score)
        for memory, score in zip(words.memories, words.lexical, strict=True)
        if memory[1] == "episode"
    ]
    around = spec.neighbour_hits > 0 and spec.neighbour_window > 0 and not spec.metadata
    if not sources and not (around and episodes):
        return None
    ctes.append(f"hits AS ({' UNION '.join(sources) or 'SELECT NULL::uuid AS id WHERE false'})")
    rank = "vec.vector_rank" if vector is not None else "NULL::bigint"
    join = "LEFT JOIN vec ON vec.id = hits.id" if vector is not None else ""
    # Each row found: the memory, its vector rank, and the hit it is a neighbour of.
    found = [f"SELECT hits.id AS hit, {rank} AS vector_rank, NULL::uuid AS parent FROM hits {join}"]
    if around:
        # The strongest episode hits: similarity plus the words' share of the best word match.
        similarity = "COALESCE(1 - (s.embedding <=> :q), 0)" if vector is not None else "0"
        ctes.append(
            "strong AS (SELECT s.id, s.agent_id, s.occurred_at, s.seq FROM "
            "(SELECT id FROM hits UNION SELECT unnest(:episodes)) f JOIN memory s ON s.id = f.id "
            "LEFT JOIN unnest(:episodes, CAST(:episode_lexical AS float8[])) AS w(id, lexical) "
            f"ON w.id = s.id WHERE s.kind = 'episode' ORDER BY {similarity} "
            "+ COALESCE(w.lexical, 0) / :top_lexical DESC, s.id LIMIT :neighbour_hits)"
        )
        found.append(
            "SELECT n.id, NULL::bigint, s.id FROM strong s CROSS JOIN LATERAL ("
            f"{_SIDE.format(op='<', dir='DESC')} UNION ALL {_SIDE.format(op='>', dir='ASC')}) n"
        )
    # The rows the words found already are not sent again, nor a neighbour the vector found.
    sql = (
        f"WITH {', '.join(ctes)}, found AS ({' UNION ALL '.join(found)}) "
        f"SELECT found.hit, found.vector_rank, found.parent, {_COLUMNS} FROM found "
        "LEFT JOIN memory m ON m.id = found.hit AND m.id <> ALL(:known) "
        "AND (found.parent IS NULL OR found.hit NOT IN (SELECT id FROM hits))"
    )
    statement = text(sql).columns(embedding=VectorType())
    statement = statement.bindparams(bindparam("known", type_=ARRAY(Uuid())))
    params = _params(spec) | {
        "known": [memory[0] for memory in words.memories],
        "vector_limit": spec.vector_limit,
        "text_limit": spec.text_limit,
    }
    if vector is not None:
        statement = statement.bindparams(bindparam("q", type_=VectorType()))
        params["q"] = vector
    if spec.period is not None:
        params.update({"from": spec.period.start, "to": spec.period.end})
    if around:
        statement = statement.bindparams(bindparam("episodes", type_=ARRAY(Uuid())))
        params.update(
            {
                "episodes": [memory_id for memory_id, _score in episodes],
                "episode_lexical": [score for _memory_id, score in episodes],
                "top_lexical": max((score for _memory_id, score in episodes), default=0.0) or 1.0,
                "neighbour_hits": spec.neighbour_hits,
                "window": spec.neighbour_window,
            }
        )
    return statement, params
