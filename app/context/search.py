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
from sqlalchemy import bindparam, func, select, text
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
        """The nearest memories by meaning, and those of the period the input names, merged
        with the word matches; each with its similarity to the input."""
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
        memories: list[tuple[Any, ...]] = list(words.memories)
        lexical: list[float | None] = list(words.lexical)
        text_ranks: list[int | None] = list(words.text_ranks)
        ranks: dict[uuid.UUID, int] = {}
        if sources:
            vector_rank = "vec.vector_rank" if vector is not None else "NULL::bigint"
            join = "LEFT JOIN vec ON vec.id = hits.id" if vector is not None else ""
            # The rows the words found already are not sent again, only their vector rank.
            sql = (
                f"WITH {', '.join(ctes)}, hits AS ({' UNION '.join(sources)}) "
                f"SELECT hits.id AS hit, {vector_rank} AS vector_rank, {_COLUMNS} FROM hits "
                f"{join} LEFT JOIN memory m ON m.id = hits.id AND m.id <> ALL(:known)"
            )
            statement = text(sql).columns(embedding=VectorType())
            statement = statement.bindparams(bindparam("known", type_=ARRAY(Uuid())))
            params = _params(spec) | {
                "known": [memory[0] for memory in memories],
                "vector_limit": spec.vector_limit,
                "text_limit": spec.text_limit,
            }
            if vector is not None:
                statement = statement.bindparams(bindparam("q", type_=VectorType()))
                params["q"] = vector
            if spec.period is not None:
                params.update({"from": spec.period.start, "to": spec.period.end})
            for hit, rank, *memory in await self.session.execute(statement, params):
                if rank is not None:
                    ranks[hit] = rank
                if memory[0] is not None:  # a row the words did not find
                    memories.append(tuple(memory))
                    lexical.append(None)
                    text_ranks.append(None)
        return _candidates(
            memories, vector, lexical=lexical, text_ranks=text_ranks, vector_ranks=ranks
        )

    async def neighbours(
        self,
        agent_id: uuid.UUID,
        hit_ids: Sequence[uuid.UUID],
        vector: Vector | None,
        window: int,
    ) -> list[Candidate]:
        """Episodes just before and after each hit on the agent's timeline."""
        if not hit_ids or window <= 0:
            return []
        side = (
            "(SELECT m.id FROM memory m WHERE m.agent_id = h.agent_id AND m.kind = 'episode' "
            "AND (m.occurred_at, m.seq) {op} (h.occurred_at, h.seq) "
            "ORDER BY m.occurred_at {dir}, m.seq {dir} LIMIT :window)"
        )
        sql = (
            f"SELECT h.id AS parent, {_COLUMNS} FROM memory h CROSS JOIN LATERAL ("
            f"{side.format(op='<', dir='DESC')} UNION ALL {side.format(op='>', dir='ASC')}"
            ") n JOIN memory m ON m.id = n.id WHERE h.id = ANY(:hits) AND h.agent_id = :agent"
        )
        statement = (
            text(sql)
            .columns(embedding=VectorType())
            .bindparams(bindparam("hits", type_=ARRAY(Uuid())))
        )
        params = {"hits": list(hit_ids), "agent": agent_id, "window": window}
        rows = (await self.session.execute(statement, params)).all()
        return _candidates([row[1:] for row in rows], vector, parents=[row[0] for row in rows])
