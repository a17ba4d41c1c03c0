"""SQL of memories."""

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from pydantic import JsonValue
from sqlalchemy import Table, bindparam, delete, func, select, text, tuple_, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.agents.models import Agent
from app.core.time import utcnow
from app.core.vector import VectorType
from app.memories.models import EmbeddingSpace, Memory


@dataclass(frozen=True)
class MemoryFilter:
    """What to list: kind, state and metadata containment."""

    kinds: Sequence[str] = ()
    states: Sequence[str] = ()
    metadata: dict[str, JsonValue] | None = None
    text: str | None = None


_FACTS_LIKE = (
    "SELECT w.i, m.id, m.content FROM unnest(CAST(:contents AS text[])) WITH ORDINALITY "
    "AS w(content, i) CROSS JOIN LATERAL (SELECT f.id, f.fields->>'content' AS content "
    "FROM memory f WHERE f.agent_id = :agent AND f.kind = 'fact' "
    "AND f.state = ANY(CAST(:states AS text[])) "
    "AND f.search_document @@ plainto_tsquery('english', w.content) "
    "ORDER BY f.seq LIMIT :limit) m ORDER BY w.i"
)


class MemoryRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def add_all(self, memories: Sequence[Memory]) -> None:
        self.session.add_all(memories)
        await self.session.flush()

    async def get(
        self,
        tenant_id: uuid.UUID,
        memory_id: uuid.UUID,
        *,
        for_update: bool = False,
        lock_against_delete: bool = False,
    ) -> tuple[Memory, Agent] | None:
        """A memory of the tenant with its agent; `lock_against_delete` keeps it from being
        erased (and nothing else) until the transaction ends."""
        query = (
            select(Memory, Agent)
            .join(Agent, Agent.id == Memory.agent_id)
            .where(Memory.id == memory_id, Memory.tenant_id == tenant_id)
        )
        if for_update:
            # Re-read the row under the lock even if this session loaded it before.
            query = query.with_for_update(of=Memory).execution_options(populate_existing=True)
        elif lock_against_delete:
            query = query.with_for_update(of=Memory, read=True, key_share=True)
        row = (await self.session.execute(query)).first()
        return (row[0], row[1]) if row else None

    async def page(
        self,
        agent_id: uuid.UUID,
        where: MemoryFilter,
        *,
        after: tuple[datetime, uuid.UUID] | None,
        limit: int,
    ) -> list[Memory]:
        """Memories of an agent, newest first, after a (created_at, id) cursor."""
        query = select(Memory).where(Memory.agent_id == agent_id)
        if where.kinds:
            query = query.where(Memory.kind.in_(where.kinds))
        if where.states:
            query = query.where(Memory.state.in_(where.states))
        if where.metadata:
            query = query.where(Memory.meta.contains(where.metadata))
        if where.text:
            tsquery = func.websearch_to_tsquery("english", where.text)
            rank = func.ts_rank_cd(Memory.search_document, tsquery)
            query = query.where(Memory.search_document.op("@@")(tsquery)).order_by(rank.desc())
        if after is not None:
            query = query.where(tuple_(Memory.created_at, Memory.id) < tuple_(*after))
        query = query.order_by(Memory.created_at.desc(), Memory.id.desc()).limit(limit)
        return list(await self.session.scalars(query))

    async def facts_like(
        self, agent_id: uuid.UUID, contents: Sequence[str], states: Sequence[str], limit: int = 10
    ) -> list[list[tuple[uuid.UUID, str]]]:
        """For each of `contents`, (id, content) of the agent's facts in `states` that hold every
        word of it (as PostgreSQL stems them): a repetition's candidates, for a whole batch in
        one statement through the word index; not locked (see `lock_in_order`)."""
        if not contents:
            return []
        rows = await self.session.execute(
            text(_FACTS_LIKE),
            {"contents": list(contents), "agent": agent_id, "states": list(states), "limit": limit},
        )
        found: list[list[tuple[uuid.UUID, str]]] = [[] for _ in contents]
        for position, memory_id, content in rows:
            found[position - 1].append((memory_id, content or ""))
        return found

    async def lock_in_order(self, memory_ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, Memory]:
        """The memories, locked for update in the order of their ids: concurrent writers that
        lock some of the same rows take them in one order and never deadlock."""
        query = (
            select(Memory)
            .where(Memory.id.in_(sorted(set(memory_ids))))
            .order_by(Memory.id)
            .with_for_update(of=Memory)
            .execution_options(populate_existing=True)
        )
        return {memory.id: memory for memory in await self.session.scalars(query)}

    async def erase(self, memory_id: uuid.UUID, successor_id: uuid.UUID | None) -> None:
        """Delete a memory (its jobs go with it, by the foreign key's cascade). Facts it had
        superseded now point at its own successor, or at none when it had none."""
        await self.session.execute(
            update(Memory)
            .where(Memory.superseded_by == memory_id)
            .values(superseded_by=successor_id, updated_at=utcnow())
        )
        await self.session.execute(delete(Memory).where(Memory.id == memory_id))

    async def texts_for_embedding(self, memory_ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, str]:
        rows = await self.session.execute(
            select(Memory.id, Memory.full_text).where(Memory.id.in_(memory_ids))
        )
        return {row[0]: row[1] for row in rows}

    async def set_embeddings(
        self, embedded: Sequence[tuple[uuid.UUID, str, list[float]]], model: str
    ) -> None:
        """Store (memory id, embedded text, vector) in one executemany; a memory whose text
        changed since is skipped, as its newer job brings the right vector."""
        await self._set_vectors(embedded, "embedding", embedding_model=model, embedded_at=utcnow())

    async def set_rescore_embeddings(
        self, embedded: Sequence[tuple[uuid.UUID, str, list[float]]], model: str
    ) -> None:
        """Store (memory id, embedded text, vector) of the rescoring model, as `set_embeddings`."""
        await self._set_vectors(embedded, "rescore_embedding", rescore_model=model)

    async def _set_vectors(
        self,
        embedded: Sequence[tuple[uuid.UUID, str, list[float]]],
        column: str,
        **values: object,
    ) -> None:
        if not embedded:
            return
        table = Memory.__table__
        assert isinstance(table, Table)
        statement = (
            update(table)
            .where(table.c.id == bindparam("b_id"), table.c.full_text == bindparam("b_text"))
            .values({column: bindparam("b_vector", type_=VectorType()), **values})
        )
        await self.session.execute(
            statement,
            [
                {"b_id": memory_id, "b_text": text_, "b_vector": vector}
                for memory_id, text_, vector in embedded
            ],
        )

    async def get_by_id(self, memory_id: uuid.UUID) -> Memory | None:
        return await self.session.get(Memory, memory_id)

    async def flush(self) -> None:
        await self.session.flush()

    async def reset_embeddings(self, dimensions: int) -> None:
        """Drop every vector and give the column a new dimension (after a model change)."""
        await self.session.execute(text("DROP INDEX IF EXISTS ix_memory_embedding"))
        await self.session.execute(
            update(Memory).values(embedding=None, embedding_model=None, embedded_at=None)
        )
        # A new type resets the column's storage to the type's: keep the vectors in the row
        # (migration 0020).
        await self.session.execute(
            text(
                f"ALTER TABLE memory ALTER COLUMN embedding TYPE vector({int(dimensions)}), "
                "ALTER COLUMN embedding SET STORAGE MAIN"
            )
        )
        await self.session.execute(
            text(
                "CREATE INDEX ix_memory_embedding ON memory "
                "USING hnsw (embedding vector_cosine_ops)"
            )
        )

    async def any_embedded(self) -> bool:
        """Whether any memory has a vector."""
        found = await self.session.scalar(
            select(Memory.id).where(Memory.embedding.is_not(None)).limit(1)
        )
        return found is not None

    async def batch_after(self, seq: int, limit: int) -> list[Memory]:
        """Memories of every tenant in write order after `seq`, locked for an update."""
        return list(
            await self.session.scalars(
                select(Memory)
                .where(Memory.seq > seq)
                .order_by(Memory.seq)
                .limit(limit)
                .with_for_update()
            )
        )

    async def all_ids(self) -> list[uuid.UUID]:
        return list(await self.session.scalars(select(Memory.id).order_by(Memory.created_at)))

    async def vector_counts(self) -> tuple[int, int]:
        """Memories with a vector, and memories in all."""
        embedded, stored = (
            await self.session.execute(select(func.count(Memory.embedding), func.count()))
        ).one()
        return embedded, stored

    async def without_vector(self) -> list[uuid.UUID]:
        """Memories that have no vector (of any tenant)."""
        return list(await self.session.scalars(select(Memory.id).where(Memory.embedding.is_(None))))

    async def count_by_kind_and_state(self) -> dict[tuple[str, str], int]:
        """Memories stored, over all tenants (for the metrics)."""
        rows = await self.session.execute(
            select(Memory.kind, Memory.state, func.count()).group_by(Memory.kind, Memory.state)
        )
        return {(row[0], row[1]): row[2] for row in rows}


class EmbeddingSpaceRepository:
    """The one row that names the model of the stored vectors."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def get(self, *, for_update: bool = False) -> EmbeddingSpace | None:
        """The row; `for_update` holds other starts that check it until this one commits."""
        return await self.session.get(EmbeddingSpace, 1, with_for_update=for_update)

    async def model(self) -> str | None:
        """The model the stored vectors come from, held steady until the transaction ends
        (a re-embedding that switches it waits)."""
        found = await self.session.scalar(
            select(EmbeddingSpace.model).where(EmbeddingSpace.id == 1).with_for_update(read=True)
        )
        return found

    async def record(self, model: str, dimensions: int) -> None:
        """The vectors stored from now on come from this model."""
        space = await self.get()
        if space is None:
            self.session.add(EmbeddingSpace(id=1, model=model, dimensions=dimensions))
        else:
            space.model, space.dimensions, space.recorded_at = model, dimensions, utcnow()
        await self.session.flush()
