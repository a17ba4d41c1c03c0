"""The statements of the search, built from a search's description; `search.py` runs them.

Rows of memories come as `COLUMNS`, in its order. Which states are searched comes from the
memories' lifecycle (`UNSEARCHABLE`), not from literals here.
"""

import json
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from pydantic import JsonValue
from sqlalchemy import TextualSelect, bindparam, text
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.types import Uuid

from app.context.types import FlexibleKind, Neighbours, Period, Vector
from app.core.context_config import ContextSettings
from app.core.vector import VectorType
from app.memories.lifecycle import UNSEARCHABLE

MAX_TERMS = 32  # of an input's words, at most this many are searched
# A memory's first anchors (its names and rare terms), those associative recall spreads.
ANCHORS_READ = 16
# What a candidate is made of, in the order `search._candidates` unpacks it.
COLUMNS = (
    "m.id, m.kind, m.micro, m.summary, m.occurred_at, m.seq, m.confidence, m.outcome, "
    # A procedure's use is its successful activations: failing often is no recommendation.
    "m.reference_count + COALESCE((m.fields->>'success_count')::int, "
    "(m.fields->>'activation_count')::int, 0) AS usage, "
    "m.state, "
    "CASE WHEN m.kind = 'procedure' THEN m.fields->>'name' END AS title, "
    "(m.fields->>'effectiveness')::float AS effectiveness, m.rank_factor, "
    f"m.anchors[1:{ANCHORS_READ}] AS anchors, m.embedding, m.rescore_embedding"
)
_SEARCHABLE = " AND ".join(
    f"NOT (m.kind = '{kind}' AND m.state IN ({', '.join(repr(s) for s in states)}))"
    for kind, states in UNSEARCHABLE.items()
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
    word_match_terms: int = 0  # a word match weighs in full at these rarest words' weight
    period: Period | None = None  # a day or month the input names: its memories are read too

    @classmethod
    def of(
        cls,
        settings: ContextSettings,
        agent_id: uuid.UUID,
        words: str,
        kinds: Sequence[FlexibleKind],
        *,
        corpus_size: int,
        metadata: dict[str, JsonValue] | None = None,
        period: Period | None = None,
    ) -> "SearchSpec":
        """A search of an agent of `corpus_size` memories with the settings' sizes: exact up
        to `exact_search_max_memories`, through the HNSW index past it."""
        return cls(
            agent_id=agent_id,
            words=words,
            kinds=kinds,
            metadata=metadata,
            vector_limit=settings.vector_candidates,
            text_limit=settings.text_candidates,
            exact=corpus_size <= settings.exact_search_max_memories,
            corpus_size=corpus_size,
            common_word_memories=settings.common_word_memories,
            word_match_terms=settings.word_match_terms,
            period=period,
        )


@dataclass(frozen=True)
class WordHits:
    """The memories the input's words found, with the summed rarity of the words each one
    holds: the half of a search that needs no vector."""

    memories: list[tuple[object, ...]]  # rows of `COLUMNS`
    lexical: list[float]
    excerpts: list[str | None] = field(default_factory=list)  # `EXCERPT` of each, or None
    terms: frozenset[str] = frozenset()  # every word of the input, as PostgreSQL stems it
    # What a memory holding the input's rarest searched words would weigh (`word_reference`).
    reference: float = 0.0


def filters(spec: SearchSpec) -> str:
    found = f"m.agent_id = :agent AND m.kind = ANY(:kinds) AND {_SEARCHABLE}"
    if spec.metadata:
        found += " AND m.metadata @> CAST(:metadata AS jsonb)"
    return found


def params(spec: SearchSpec) -> dict[str, object]:
    bound: dict[str, object] = {"agent": spec.agent_id, "kinds": list(spec.kinds)}
    if spec.metadata:
        bound["metadata"] = json.dumps(spec.metadata)
    return bound


# Each word of the input as PostgreSQL stems it (stop words dropped) and in how many of the
# agent's memories it is: the frequent words' counts the process keeps (:known, :known_df), the
# rest counted up to :common + 1 (a word in more memories tells them apart no better than a stop
# word: it is not searched, which keeps the join short on big agents).
_COUNTS = (
    "stems AS (SELECT DISTINCT lexeme AS word FROM unnest(to_tsvector('english', :input)) "
    "LIMIT :max_terms), "
    "counts AS MATERIALIZED (SELECT s.word, COALESCE(k.df, (SELECT count(*) FROM (SELECT 1 "
    "FROM memory d WHERE d.agent_id = :agent "
    "AND d.search_document @@ quote_literal(s.word)::tsquery LIMIT :common + 1) d)) AS df "
    "FROM stems s LEFT JOIN unnest(CAST(:known AS text[]), CAST(:known_df AS int[])) "
    "AS k(word, df) ON k.word = s.word)"
)
# BM25's inverse document frequency of each searched word among the agent's :size memories. The
# size is counted once a minute, the words in every build: memories written since may hold a
# word more often than the size says, so it is at least `df` (else the weight goes negative and a
# new memory's words count against it).
_TERMS = (
    "terms AS MATERIALIZED (SELECT c.word, quote_literal(c.word)::tsquery AS q, "
    "ln((greatest(:size, c.df) - c.df + 0.5::float8) / (c.df + 0.5::float8) + 1) AS idf "
    "FROM counts c WHERE c.df BETWEEN 1 AND :common)"
)


def word_reference(weights: Iterable[float], spec: SearchSpec) -> float:
    """The summed weight (`_TERMS`) of the input's `word_match_terms` rarest words that the
    searched memories hold (`_held`): a memory that holds them all weighs at least this. A word
    match is measured against it as well as against the best match, so a memory sharing one
    middling word of an input whose rarer words it lacks does not count as a full word match
    merely because nothing holds more."""
    return sum(sorted(weights, reverse=True)[: spec.word_match_terms])


def _held(spec: SearchSpec) -> str:
    """The searched words that some memory the search may find holds (of its kinds, its
    metadata, a searchable state), one index probe a word: a word that only a superseded memory
    or one of another kind holds is rare, but no match of this search can hold it."""
    return (
        "held AS (SELECT t.word, t.idf FROM terms t WHERE EXISTS (SELECT 1 FROM memory m "
        f"WHERE {filters(spec)} AND m.search_document @@ t.q))"
    )


_ANY_TERM = "(SELECT to_tsquery('simple', string_agg(quote_literal(word), ' | ')) FROM terms)"

# A long record whose summary holds none of the input's words that its full text holds: the
# passages around those words (at most two, about 30 words each), shown instead of the summary.
EXCERPTS = 8  # only the best word matches are looked at: each excerpt costs a build ~0.2 ms
EXCERPT = (
    f"CASE WHEN txt.rank <= {EXCERPTS} AND length(m.full_text) > 2 * length(m.summary) AND NOT "
    f"(to_tsvector('english', m.summary) @@ {_ANY_TERM}) THEN ts_headline('english', "
    f'm.full_text, {_ANY_TERM}, \'MaxFragments=2, MinWords=8, MaxWords=30, StartSel="", '
    'StopSel="", FragmentDelimiter=" … "\') END'
)


def words_and_matches(spec: SearchSpec) -> TextualSelect:
    """The input's words with their counts, and the memories they find, in one statement.
    BM25-style: each word weighs its rarity among the agent's memories, so a name that is in
    every other turn counts for little and a rare word for much. Rows of (word, count) for the
    words (and its weight where a memory the search may find holds it: `_held`), then of
    (NULL, NULL, NULL, lexical, excerpt, `COLUMNS`) for the best :text_limit matches, in no
    particular order (ranking orders them)."""
    sql = (
        f"WITH {_COUNTS}, {_TERMS}, {_held(spec)}, "
        "txt AS (SELECT m.id, sum(terms.idf) AS lexical, "
        "row_number() OVER (ORDER BY sum(terms.idf) DESC, m.id) AS rank FROM memory m "
        f"JOIN terms ON m.search_document @@ terms.q WHERE {filters(spec)} "
        "GROUP BY m.id ORDER BY lexical DESC, m.id LIMIT :text_limit), "
        f"found AS (SELECT txt.lexical, {EXCERPT} AS excerpt, {COLUMNS} "
        "FROM txt JOIN memory m ON m.id = txt.id) "
        "SELECT counts.word, counts.df, held.idf AS held, found.* "
        "FROM counts LEFT JOIN held ON held.word = counts.word FULL JOIN found ON false"
    )
    return text(sql).columns(embedding=VectorType(), rescore_embedding=VectorType())


# The episodes next to one strong hit `s`, before and after it on the agent's timeline, while
# it lasted (from its start to its end) or within :gap of it: parts of the same conversation or
# session, not whatever happened the week before. Only episodes whose writer said when they
# happened (`dated`): the time of writing says nothing of what happened together, and a batch
# of notes from months apart is written in one minute.
_SIDE = (
    "(SELECT m.id FROM memory m WHERE m.agent_id = s.agent_id AND m.kind = 'episode' "
    "AND m.dated AND (m.occurred_at, m.seq) {op} (s.occurred_at, s.seq) "
    "AND m.occurred_at BETWEEN s.occurred_at - CAST(:gap AS interval) "
    "AND s.ended_at + CAST(:gap AS interval) "
    "ORDER BY m.occurred_at {dir}, m.seq {dir} LIMIT :window)"
)
# When a hit ended: its ended_at, as written, when it has one after its start.
_ENDED = (
    "GREATEST(s.occurred_at, COALESCE(CAST(s.fields->>'ended_at' AS timestamptz), "
    "s.occurred_at)) AS ended_at"
)


def _hits(spec: SearchSpec, vector: Vector | None, rescore: Vector | None) -> list[str]:
    """The CTEs of what is found besides the words: the nearest by meaning (by the rescoring
    model's vectors too, on an agent small enough for an exact scan), the period's."""
    ctes, sources = [], []
    if vector is not None:
        order = "(m.embedding <=> :q) + 0" if spec.exact else "m.embedding <=> :q"
        ctes.append(
            f"vec AS (SELECT m.id FROM memory m WHERE {filters(spec)} "
            f"AND m.embedding IS NOT NULL ORDER BY {order} LIMIT :vector_limit)"
        )
        sources.append("SELECT id FROM vec")
    if rescore is not None and spec.exact:
        ctes.append(
            f"rescored AS (SELECT m.id FROM memory m WHERE {filters(spec)} "
            "AND vector_dims(m.rescore_embedding) = :r_dimensions "
            "ORDER BY m.rescore_embedding <=> :r LIMIT :vector_limit)"
        )
        sources.append("SELECT id FROM rescored")
    if spec.period is not None:
        # What happened in the period the input names, closest in meaning first.
        order = "m.embedding <=> :q" if vector is not None else "m.occurred_at"
        ctes.append(
            f"dated AS (SELECT m.id FROM memory m WHERE {filters(spec)} "
            "AND m.occurred_at >= :from AND m.occurred_at < :to "
            f"ORDER BY {order} LIMIT :text_limit)"
        )
        sources.append("SELECT id FROM dated")
    ctes.append(f"hits AS ({' UNION '.join(sources) or 'SELECT NULL::uuid AS id WHERE false'})")
    return ctes


def _strong_episodes(vector: Vector | None) -> str:
    """The strongest episode hits whose writer said when they happened: similarity plus the
    words' share of the best word match."""
    similarity = "COALESCE(1 - (s.embedding <=> :q), 0)" if vector is not None else "0"
    return (
        f"strong AS (SELECT s.id, s.agent_id, s.occurred_at, s.seq, {_ENDED} FROM "
        "(SELECT id FROM hits UNION SELECT unnest(:episodes)) f JOIN memory s ON s.id = f.id "
        "LEFT JOIN unnest(:episodes, CAST(:episode_lexical AS float8[])) AS w(id, lexical) "
        f"ON w.id = s.id WHERE s.kind = 'episode' AND s.dated ORDER BY {similarity} "
        "+ COALESCE(w.lexical, 0) / :top_lexical DESC, s.id LIMIT :neighbour_hits)"
    )


def meaning_and_neighbours(
    spec: SearchSpec,
    neighbours: Neighbours,
    words: WordHits,
    vector: Vector | None,
    rescore: Vector | None = None,
) -> tuple[TextualSelect, dict[str, object]] | None:
    """The statement that finishes a search, in one round trip: rows of (id, neighbour of,
    `COLUMNS`), the columns empty for a memory the words found already. None when it has
    nothing to find."""
    episodes = [
        (memory[0], score)
        for memory, score in zip(words.memories, words.lexical, strict=True)
        if memory[1] == "episode"
    ]
    around = neighbours.hits > 0 and neighbours.window > 0 and not spec.metadata
    if vector is None and spec.period is None and not (around and episodes):
        return None
    rescore = rescore if vector is not None else None
    ctes = _hits(spec, vector, rescore)
    found = ["SELECT hits.id AS hit, NULL::uuid AS parent FROM hits"]
    if around:
        ctes.append(_strong_episodes(vector))
        found.append(
            "SELECT n.id, s.id FROM strong s CROSS JOIN LATERAL ("
            f"{_SIDE.format(op='<', dir='DESC')} UNION ALL {_SIDE.format(op='>', dir='ASC')}) n"
        )
    # The rows the words found already are not sent again, nor a neighbour the vector found.
    sql = (
        f"WITH {', '.join(ctes)}, found AS ({' UNION ALL '.join(found)}) "
        f"SELECT found.hit, found.parent, {COLUMNS} FROM found "
        "LEFT JOIN memory m ON m.id = found.hit AND m.id <> ALL(:known) "
        "AND (found.parent IS NULL OR found.hit NOT IN (SELECT id FROM hits))"
    )
    statement = text(sql).columns(embedding=VectorType(), rescore_embedding=VectorType())
    statement = statement.bindparams(bindparam("known", type_=ARRAY(Uuid())))
    bound = params(spec) | {
        "known": [memory[0] for memory in words.memories],
        "vector_limit": spec.vector_limit,
        "text_limit": spec.text_limit,
    }
    if vector is not None:
        statement = statement.bindparams(bindparam("q", type_=VectorType()))
        bound["q"] = vector
    if rescore is not None and spec.exact:
        statement = statement.bindparams(bindparam("r", type_=VectorType()))
        bound |= {"r": rescore, "r_dimensions": len(rescore)}
    if spec.period is not None:
        bound.update({"from": spec.period.start, "to": spec.period.end})
    if around:
        statement = statement.bindparams(bindparam("episodes", type_=ARRAY(Uuid())))
        bound |= _episode_params(episodes, neighbours)
    return statement, bound


def _episode_params(
    episodes: list[tuple[object, float]], neighbours: Neighbours
) -> dict[str, object]:
    return {
        "episodes": [memory_id for memory_id, _score in episodes],
        "episode_lexical": [score for _memory_id, score in episodes],
        "top_lexical": max((score for _memory_id, score in episodes), default=0.0) or 1.0,
        "neighbour_hits": neighbours.hits,
        "window": neighbours.window,
        "gap": neighbours.gap,
    }
