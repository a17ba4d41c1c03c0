"""SQL of context assembly besides the search: censors, calibration, stored builds, references."""

import functools
import uuid
from collections.abc import Sequence
from typing import Any, cast

from sqlalchemy import (
    CompoundSelect,
    Integer,
    Table,
    Text,
    Uuid,
    bindparam,
    func,
    insert,
    literal,
    literal_column,
    null,
    select,
    union_all,
    update,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import defer

from app.context.models import ContextBuild
from app.context.types import Censor, Standing
from app.core.time import utcnow
from app.core.vector import VectorType
from app.memories.lifecycle import ACTIVE_CENSOR, REVIEWED_DECISION
from app.memories.models import Memory


@functools.cache
def _standing_query() -> CompoundSelect[Any]:
    """Built once: composing it costs more than running it, and every build runs it."""
    columns = (Memory.id, Memory.fields, Memory.confidence, Memory.outcome)
    agent = bindparam("agent", type_=Uuid())
    limit = bindparam("limit", type_=Integer())
    # A censor's trigger words as PostgreSQL stems them, to match the input's words.
    trigger = func.tsvector_to_array(
        func.to_tsvector(
            literal_column("'english'::regconfig"),
            func.concat_ws(
                " ", Memory.fields["trigger_pattern"].astext, Memory.fields["domain"].astext
            ),
        )
    )
    censors = (
        select(
            literal("censor").label("part"),
            *columns,
            trigger.label("terms"),
            Memory.embedding.label("embedding"),
        )
        .where(
            Memory.agent_id == agent,
            Memory.kind == "censor",
            Memory.state.in_(ACTIVE_CENSOR),
        )
        .order_by(Memory.created_at, Memory.id)
        .limit(limit)
    )
    reviewed = (
        select(
            literal("reviewed").label("part"),
            *columns,
            null().cast(ARRAY(Text)).label("terms"),
            null().cast(VectorType()).label("embedding"),
        )
        .where(
            Memory.agent_id == agent,
            Memory.kind == "decision",
            Memory.state == REVIEWED_DECISION,
        )
        .order_by(Memory.updated_at.desc())
        .limit(limit)
    )
    return union_all(censors, reviewed)


class ContextRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def standing(self, agent_id: uuid.UUID, limit: int = 200) -> Standing:
        """The active censors (the oldest `limit`) with their trigger words and vectors, and
        the latest reviewed decisions' (confidence, outcome) and outcome notes: what a build
        reads besides its search results, in one query."""
        params = {"agent": agent_id, "limit": limit}
        rows = (await self.session.execute(_standing_query(), params)).all()
        active = [
            Censor(
                row.id,
                str(row.fields.get("action", "warn")),
                str(row.fields["trigger_pattern"]),
                str(row.fields["reason"]),
                domain=str(row.fields.get("domain") or ""),
                terms=frozenset(row.terms or ()),
                embedding=row.embedding,
            )
            for row in rows
            if row.part == "censor"
        ]
        reviewed = [row for row in rows if row.part == "reviewed" and row.outcome is not None]
        return Standing(
            active,
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
        self, tenant_id: uuid.UUID, agent_id: uuid.UUID, limit: int
    ) -> Sequence[ContextBuild]:
        """An agent's latest builds, newest first, without their stored documents."""
        documents = (ContextBuild.request, ContextBuild.response, ContextBuild.centroid)
        query = (
            select(ContextBuild)
            .options(*(defer(column, raiseload=True) for column in documents))
            .where(ContextBuild.tenant_id == tenant_id, ContextBuild.agent_id == agent_id)
            .order_by(ContextBuild.created_at.desc(), ContextBuild.id.desc())
            .limit(limit)
        )
        return (await self.session.scalars(query)).all()

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
