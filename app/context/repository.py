"""SQL of context assembly besides the search: censors, calibration, stored builds, references."""

import functools
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    BigInteger,
    Row,
    Table,
    Text,
    TextualSelect,
    Uuid,
    bindparam,
    delete,
    func,
    insert,
    select,
    text,
    tuple_,
    update,
)
from sqlalchemy import cast as sql_cast
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import defer

from app.context.models import ContextBuild
from app.context.retrieval.censor_cache import CensorCache
from app.context.types import Censor, Standing
from app.core.time import utcnow
from app.core.vector import VectorType
from app.memories.lifecycle import ACTIVE_CENSOR, REVIEWED_DECISION
from app.memories.models import Memory


def _states(states: Sequence[str]) -> str:
    return ", ".join(f"'{state}'" for state in states)


# The agent's active censors (the oldest `limit`): one row with the ids and row versions of all,
# in order, then in full (the trigger words as PostgreSQL stems them, to match the input's words;
# the document; the vector) only those the process does not hold at that version
# (`retrieval/censor_cache.py`); then the latest reviewed decisions. One statement: a round trip
# costs a build about a millisecond, a row of a couple of hundred more Python than an array.
_STANDING = f"""
WITH m AS MATERIALIZED (
  SELECT id, xmin::text::bigint AS version, confidence, outcome, fields, embedding, created_at
  FROM memory
  WHERE agent_id = :agent AND kind = 'censor' AND state IN ({_states(ACTIVE_CENSOR)})
  ORDER BY created_at, id LIMIT :limit)
(SELECT 'censors' AS part, NULL::uuid AS id, NULL::bigint AS version, NULL::float8 AS confidence,
        NULL::text AS outcome, NULL::jsonb AS fields, NULL::text[] AS terms,
        NULL::vector AS embedding, ARRAY(SELECT id FROM m ORDER BY created_at, id) AS ids,
        ARRAY(SELECT version FROM m ORDER BY created_at, id) AS versions)
UNION ALL
(SELECT 'censor', m.id, m.version, m.confidence, m.outcome, m.fields,
        tsvector_to_array(to_tsvector('english'::regconfig,
            concat_ws(' ', m.fields->>'trigger_pattern', m.fields->>'domain'))),
        m.embedding, NULL, NULL
 FROM m
 WHERE NOT EXISTS (SELECT 1 FROM unnest(CAST(:known_ids AS uuid[]),
                                        CAST(:known_versions AS bigint[])) AS k(id, version)
                   WHERE k.id = m.id AND k.version = m.version))
UNION ALL
(SELECT 'reviewed', id, NULL, confidence, outcome, fields, NULL, NULL, NULL, NULL
 FROM memory
 WHERE agent_id = :agent AND kind = 'decision' AND state = '{REVIEWED_DECISION}'
 ORDER BY updated_at DESC LIMIT :limit)
"""


@functools.cache
def _standing_query() -> TextualSelect:
    return (
        text(_STANDING)
        .columns(embedding=VectorType())
        .bindparams(
            bindparam("known_ids", type_=ARRAY(Uuid())),
            bindparam("known_versions", type_=ARRAY(BigInteger())),
        )
    )


def _censor(row: Row[Any]) -> Censor:
    return Censor(
        row.id,
        str(row.fields.get("action", "warn")),
        str(row.fields["trigger_pattern"]),
        str(row.fields["reason"]),
        domain=str(row.fields.get("domain") or ""),
        terms=frozenset(row.terms or ()),
        embedding=row.embedding,
    )


class ContextRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def standing(self, agent_id: uuid.UUID, cache: CensorCache, limit: int = 200) -> Standing:
        """The active censors (the oldest `limit`) with their trigger words and vectors, and
        the latest reviewed decisions' (confidence, outcome) and outcome notes: what a build
        reads besides its search results, in one query. Censors the cache holds at their
        current row version are not sent again."""
        known = cache.known(agent_id)
        params = {
            "agent": agent_id,
            "limit": limit,
            "known_ids": list(known),
            "known_versions": [version for version, _censor in known.values()],
        }
        rows = (await self.session.execute(_standing_query(), params)).all()
        window = next(row for row in rows if row.part == "censors")
        order = list(zip(window.ids, window.versions, strict=True))
        sent = {row.id: (row.version, _censor(row)) for row in rows if row.part == "censor"}
        reviewed = [row for row in rows if row.part == "reviewed" and row.outcome is not None]
        return Standing(
            cache.keep(agent_id, known, order, sent),
            [(float(row.confidence or 0.0), str(row.outcome)) for row in reviewed],
            {
                row.id: notes.strip()
                for row in reviewed
                if isinstance(notes := row.fields.get("outcome_notes"), str) and notes.strip()
            },
        )

    async def add_build(self, build: ContextBuild) -> None:
        """Insert a build as it is: a plain INSERT costs half of what the session's flush does,
        and nothing in the request reads the row back."""
        table = cast(Table, ContextBuild.__table__)
        values = {column.key: getattr(build, column.key) for column in table.columns}
        await self.session.execute(insert(table), values)

    async def get_build(
        self, tenant_id: uuid.UUID, build_id: uuid.UUID, *, for_update: bool = False
    ) -> ContextBuild | None:
        query = select(ContextBuild).where(
            ContextBuild.id == build_id, ContextBuild.tenant_id == tenant_id
        )
        if for_update:
            query = query.with_for_update()
        return await self.session.scalar(query)

    async def recent_builds(
        self,
        tenant_id: uuid.UUID,
        agent_id: uuid.UUID,
        limit: int,
        before: tuple[datetime, uuid.UUID] | None = None,
    ) -> Sequence[ContextBuild]:
        """An agent's latest builds (made before the `before` position), newest first, without
        their stored documents."""
        documents = (ContextBuild.request, ContextBuild.response, ContextBuild.centroid)
        query = (
            select(ContextBuild)
            .options(*(defer(column, raiseload=True) for column in documents))
            .where(ContextBuild.tenant_id == tenant_id, ContextBuild.agent_id == agent_id)
            .order_by(ContextBuild.created_at.desc(), ContextBuild.id.desc())
            .limit(limit)
        )
        if before is not None:
            query = query.where(tuple_(ContextBuild.created_at, ContextBuild.id) < tuple_(*before))
        return (await self.session.scalars(query)).all()

    async def delete_session_builds(
        self, agent_id: uuid.UUID, session_name: str
    ) -> list[uuid.UUID]:
        """Delete the agent's builds with the session (their responses hold its messages), and
        so their refreshes (a refresh keeps its build's session); their ids."""
        erased = await self.session.scalars(
            delete(ContextBuild)
            .where(
                ContextBuild.agent_id == agent_id,
                ContextBuild.request["session_id"].astext == session_name,
            )
            .returning(ContextBuild.id)
        )
        return list(erased)

    async def texts(self, memory_ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, str]:
        """The summary of each memory, to match an LLM reply against."""
        rows = await self.session.execute(
            select(Memory.id, Memory.summary).where(Memory.id.in_(memory_ids))
        )
        return {row[0]: row[1] for row in rows}

    async def record_references(self, memory_ids: Sequence[uuid.UUID]) -> None:
        """Count a reference to each memory (feedback and expand); a memory in use ranks at
        its full score again (retention lowers a stale fact's)."""
        if not memory_ids:
            return
        await self.session.execute(
            update(Memory)
            .where(Memory.id.in_(memory_ids))
            .values(
                reference_count=Memory.reference_count + 1,
                last_referenced_at=utcnow(),
                rank_factor=1.0,
            )
        )

    async def builds_naming(
        self, agent_id: uuid.UUID, memory_id: uuid.UUID, since: datetime
    ) -> list[uuid.UUID]:
        """The agent's builds made since `since` whose stored response names the memory
        anywhere (a layer, left out, a premise), locked. Reads each such build's response: a
        memory is erased rarely, a build is stored at every turn (no index to keep up)."""
        return list(
            await self.session.scalars(
                select(ContextBuild.id)
                .where(
                    ContextBuild.agent_id == agent_id,
                    ContextBuild.created_at >= since,
                    func.strpos(sql_cast(ContextBuild.response, Text), str(memory_id)) > 0,
                )
                .order_by(ContextBuild.id)
                .with_for_update()
            )
        )

    async def responses(self, build_ids: Sequence[uuid.UUID]) -> list[tuple[uuid.UUID, str]]:
        """The stored responses of these builds, as stored."""
        rows = await self.session.execute(
            select(ContextBuild.id, ContextBuild.response).where(ContextBuild.id.in_(build_ids))
        )
        return [(row[0], row[1]) for row in rows]

    async def replace_responses(self, responses: Sequence[tuple[uuid.UUID, str]]) -> None:
        """Store (build id, response) pairs in one executemany: a round trip each would cost
        more than the rewriting."""
        if not responses:
            return
        table = cast(Table, ContextBuild.__table__)
        await self.session.execute(
            update(table)
            .where(table.c.id == bindparam("b_id"))
            .values(response=bindparam("b_response", type_=table.c.response.type)),
            [{"b_id": build_id, "b_response": response} for build_id, response in responses],
        )
