"""Every memory's anchors found again from its original text (an episode that retention
summarized keeps it in memory_cold), by a migration after the way anchors are found changed;
only the memories whose anchors change are written."""

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from app.providers.anchors import build_anchor_finder

BATCH = 1000

_SELECT = sa.text(
    "SELECT m.id, COALESCE(c.full_text, m.full_text), m.anchors FROM memory m "
    "LEFT JOIN memory_cold c ON c.memory_id = m.id WHERE m.id > :after ORDER BY m.id "
    "LIMIT :batch"
)
_UPDATE = sa.text("UPDATE memory SET anchors = :anchors WHERE id = :id").bindparams(
    sa.bindparam("anchors", type_=postgresql.ARRAY(sa.Text()))
)


def find_anchors_again(connection: sa.Connection, batch: int = BATCH) -> int:
    """Find every memory's anchors as this version finds them, a batch of memories at a time
    in the caller's transaction; how many memories' anchors changed."""
    finder = build_anchor_finder()
    after, changed = "00000000-0000-0000-0000-000000000000", 0
    while rows := connection.execute(_SELECT, {"after": after, "batch": batch}).all():
        found = [(row[0], finder.find(row[1]), list(row[2])) for row in rows]
        if updates := [{"id": i, "anchors": new} for i, new, old in found if new != old]:
            connection.execute(_UPDATE, updates)
            changed += len(updates)
        after = rows[-1][0]
    return changed
