"""The statement of associative recall (`links.py` runs it): the memories that share an anchor
with a build's strongest hits or with its input, each with how strongly it is tied and by what.

An anchor ties as strongly as the hit it comes from (the input's anchors: `input_strength`)
over the square root of how many other memories hold it: fully when the hit shares it with one
other memory, half as much with four; one held by more than `max_memories` ties nothing. A
memory's tie is that of its strongest anchor, which says why, with the hit it came through. One
round trip: the anchors' counts stop at `max_memories` + 1.
"""

from sqlalchemy import TextualSelect, bindparam, text
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.types import Float, Text, Uuid

from app.context.search_sql import COLUMNS, SearchSpec, filters
from app.core.vector import VectorType

_LINKED = (
    "WITH seed AS (SELECT * FROM unnest(CAST(:seeds AS uuid[]), CAST(:strengths AS float8[])) "
    "AS s(id, strength)), "
    "tie AS (SELECT a.anchor, s.strength, s.id AS via FROM seed s JOIN memory h ON h.id = s.id "
    "CROSS JOIN LATERAL unnest(h.anchors) AS a(anchor) "
    "UNION ALL SELECT a, CAST(:input_strength AS float8), NULL::uuid "
    "FROM unnest(CAST(:input_anchors AS text[])) AS a), "
    "best AS (SELECT DISTINCT ON (anchor) anchor, strength, via FROM tie "
    "ORDER BY anchor, strength DESC), "
    "counted AS (SELECT b.anchor, b.strength, b.via, (SELECT count(*) FROM (SELECT 1 "
    "FROM memory d WHERE d.agent_id = :agent AND d.anchors @> ARRAY[b.anchor] "
    "LIMIT :max_memories + 1) c) AS df FROM best b), "
    "weighed AS (SELECT anchor, via, strength / sqrt(greatest(df - (via IS NOT NULL)::int, 1)) "
    "AS weight FROM counted WHERE df BETWEEN 1 AND :max_memories), "
    "link AS (SELECT m.id, max(w.weight) AS strength, "
    "(array_agg(w.anchor ORDER BY w.weight DESC, w.anchor))[1] AS anchor, "
    "(array_agg(w.via ORDER BY w.weight DESC, w.anchor))[1] AS via "
    "FROM weighed w JOIN memory m ON m.anchors @> ARRAY[w.anchor] "
    "AND m.id IS DISTINCT FROM w.via WHERE {filters} "
    "GROUP BY m.id ORDER BY strength DESC, m.id LIMIT :limit) "
    "SELECT link.id, link.strength, link.anchor, link.via, {columns} FROM link "
    "LEFT JOIN memory m ON m.id = link.id AND m.id <> ALL(:known)"
)


def linked(spec: SearchSpec) -> TextualSelect:
    """Rows of (id, tie, anchor, via, `COLUMNS`), the columns empty for a memory already
    among the candidates (:known)."""
    sql = _LINKED.format(filters=filters(spec), columns=COLUMNS)
    return (
        text(sql)
        .columns(embedding=VectorType())
        .bindparams(
            bindparam("known", type_=ARRAY(Uuid())),
            bindparam("seeds", type_=ARRAY(Uuid())),
            bindparam("strengths", type_=ARRAY(Float())),
            bindparam("input_anchors", type_=ARRAY(Text())),
        )
    )
