"""The statement of associative recall (`links.py` runs it): the memories that share an anchor
with a build's strongest hits or with its input, each with how strongly it is tied and by what.

An anchor ties as strongly as the hit it comes from (the input's anchors: `input_strength`)
over the square root of how many other memories hold it: fully when the hit shares it with one
other memory, half as much with four; one held by more than `max_memories` ties nothing. A
memory's tie is that of its strongest anchor, which says why, with the hit it came through. One
round trip: the anchors' counts stop at `max_memories` + 1, and the anchors found too common
are kept a minute (`CorpusStats`), so later builds do not count them again.
"""

from sqlalchemy import TextualSelect, bindparam, text
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.types import Float, Text, Uuid

from app.context.retrieval.search_sql import ANCHORS_READ, COLUMNS, SearchSpec, filters
from app.core.vector import VectorType

# Each hit's first `per_hit` anchors: a long document names many things, most of them in passing.
_LINKED = (
    "WITH seed AS (SELECT * FROM unnest(CAST(:seeds AS uuid[]), CAST(:strengths AS float8[])) "
    "AS s(id, strength)), "
    "tie AS (SELECT a.anchor, s.strength, s.id AS via FROM seed s JOIN memory h ON h.id = s.id "
    "CROSS JOIN LATERAL unnest(h.anchors[1:{per_hit}]) AS a(anchor) "
    "UNION ALL SELECT a, CAST(:input_strength AS float8), NULL::uuid "
    "FROM unnest(CAST(:input_anchors AS text[])) AS a), "
    "best AS (SELECT DISTINCT ON (anchor) anchor, strength, via FROM tie "
    "WHERE anchor <> ALL(:common) ORDER BY anchor, strength DESC), "
    # The memories holding each anchor, one more than `max_memories` at most: how many there are
    # says how strongly the anchor ties them.
    "held AS (SELECT b.anchor, b.strength, b.via, d.id FROM best b CROSS JOIN LATERAL "
    "(SELECT m.id FROM memory m WHERE m.agent_id = :agent AND m.anchors @> ARRAY[b.anchor] "
    "LIMIT :max_memories + 1) d), "
    "counted AS (SELECT anchor, count(*) AS df FROM held GROUP BY anchor), "
    "weighed AS (SELECT h.id, h.anchor, h.via, "
    "h.strength / sqrt(greatest(c.df - (h.via IS NOT NULL)::int, 1)) AS weight "
    "FROM held h JOIN counted c USING (anchor) "
    "WHERE c.df <= :max_memories AND h.id IS DISTINCT FROM h.via), "
    "link AS (SELECT m.id, max(w.weight) AS strength, "
    "(array_agg(w.anchor ORDER BY w.weight DESC, w.anchor))[1] AS anchor, "
    "(array_agg(w.via ORDER BY w.weight DESC, w.anchor))[1] AS via "
    "FROM weighed w JOIN memory m ON m.id = w.id WHERE {filters} "
    "GROUP BY m.id ORDER BY strength DESC, m.id LIMIT :limit), "
    "common AS (SELECT array_agg(anchor) AS anchors FROM counted WHERE df > :max_memories) "
    "SELECT common.anchors, link.id, link.strength, link.anchor, link.via, {columns} "
    "FROM common LEFT JOIN link ON true "
    "LEFT JOIN memory m ON m.id = link.id AND m.id <> ALL(:known)"
)


def linked(spec: SearchSpec) -> TextualSelect:
    """Rows of (the anchors found too common, id, tie, anchor, via, `COLUMNS`), the columns
    empty for a memory already among the candidates (:known); one row of the common anchors
    alone when nothing is tied. Anchors in :common are known to be too common already."""
    sql = _LINKED.format(filters=filters(spec), columns=COLUMNS, per_hit=ANCHORS_READ)
    return (
        text(sql)
        .columns(embedding=VectorType(), rescore_embedding=VectorType())
        .bindparams(
            bindparam("known", type_=ARRAY(Uuid())),
            bindparam("seeds", type_=ARRAY(Uuid())),
            bindparam("strengths", type_=ARRAY(Float())),
            bindparam("input_anchors", type_=ARRAY(Text())),
            bindparam("common", type_=ARRAY(Text())),
        )
    )
