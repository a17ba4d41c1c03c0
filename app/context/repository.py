"""SQL of context assembly: hybrid search, neighbouring episodes, censors, calibration, builds."""

import json
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from pydantic import JsonValue
from sqlalchemy import Row, bindparam, func, literal, select, text, union_all, update
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.types import Uuid

from app.context.models import ContextBuild
from app.context.periods import Period
from app.context.types import Candidate, Censor, FlexibleKind
from app.core.time import utcnow
from app.core.vector import VectorType
from app.memories.models import Memory

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# Retired procedures and facts proven wrong are not searched; superseded facts are, lower.
_SEARCHABLE = (
    "NOT (m.kind = 'fact' AND m.state = 'inactive') "
    "AND NOT (m.kind = 'procedure' AND m.state = 'retired')"
)
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
    vector: list[float] | None
    words: str
    kinds: Sequence[FlexibleKind]
    metadata: dict[str, JsonValue] | None
    vector_limit: int
    text_limit: int
    exact: bool
    corpus_size: int  # the agent's memories, for the words' document frequencies
    common_word_memories: int  # words in more memories than this are not searched
    period: Period | None = None  # a day or month the input names: its memories are read too


def _candidate(row: Row[tuple[object, ...]], *, neighbour_of: uuid.UUID | None = None) -> Candidate:
    data = row._asdict()
    embedding = data["embedding"]
    return Candidate(
        memory_id=data["id"],
        kind=data["kind"],
        state=data["state"],
        micro=data["micro"],
        summary=data["summary"],
        semantic=float(data["similarity"]) if data["similarity"] is not None else None,
        lexical=float(data["lexical"] or 0.0),
        vector_rank=data.get("vector_rank"),
        text_rank=data.get("text_rank"),
        occurred_at=data["occurred_at"],
        seq=data["seq"],
        confidence=data["confidence"],
        outcome=data["outcome"],
        usage=int(data["usage"]),
        superseded=bool(data["superseded"]),
        embedding=np.asarray(embedding, dtype=np.float32) if embedding is not None else None,
        title=data["title"],
        neighbour_of=neighbour_of,
    )


class ContextRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def agent_size(self, agent_id: uuid.UUID) -> int:
        """How many memories the agent has (picks exact or approximate vector search)."""
        count = await self.session.scalar(
            select(func.count()).select_from(Memory).where(Memory.agent_id == agent_id)
        )
        return int(count or 0)

    async def search(self, spec: SearchSpec) -> list[Candidate]:
        """Vector and full-text search in one round trip, scoped to the agent."""
        tsquery = bool(_WORD.search(spec.words))
        filters = f"m.agent_id = :agent AND m.kind = ANY(:kinds) AND {_SEARCHABLE}"
        if spec.metadata:
            filters += " AND m.metadata @> CAST(:metadata AS jsonb)"
        ctes, sources = [], []
        if spec.vector is not None:
            order = "(m.embedding <=> :q) + 0" if spec.exact else "m.embedding <=> :q"
            ctes.append(
                f"vec AS (SELECT m.id, row_number() OVER () AS vector_rank FROM ("
                f"SELECT m.id FROM memory m WHERE {filters} AND m.embedding IS NOT NULL "
                f"ORDER BY {order} LIMIT :vector_limit) m)"
            )
            sources.append("SELECT id FROM vec")
        if tsquery:
            # BM25-style: each of the input's words (stemmed, stop words dropped by PostgreSQL)
            # weighs its inverse document frequency among the agent's memories, so a name that
            # is in every other turn counts for little and a rare word for much.
            ctes.append(
                # MATERIALIZED: counted once per word, not once per memory the join visits.
                "terms AS MATERIALIZED (SELECT l.q, ln((:corpus - c.df + 0.5) / (c.df + 0.5) + 1) "
                "AS idf FROM (SELECT DISTINCT quote_literal(lexeme)::tsquery AS q "
                "FROM unnest(to_tsvector('english', :words)) LIMIT :max_terms) l "
                # A word in more than :common memories tells them apart no better than a stop
                # word; it is left out, which keeps the count and the join short on big agents.
                "CROSS JOIN LATERAL (SELECT count(*) AS df FROM (SELECT 1 FROM memory d "
                "WHERE d.agent_id = :agent AND d.search_document @@ l.q LIMIT :common + 1) d) c "
                "WHERE c.df BETWEEN 1 AND :common)"
            )
            ctes.append(
                "txt AS (SELECT m.id, sum(terms.idf) AS lexical, row_number() OVER "
                "(ORDER BY sum(terms.idf) DESC, m.id) AS text_rank FROM memory m "
                f"JOIN terms ON m.search_document @@ terms.q WHERE {filters} "
                "GROUP BY m.id ORDER BY lexical DESC, m.id LIMIT :text_limit)"
            )
            sources.append("SELECT id FROM txt")
        if spec.period is not None:
            # What happened in the period the input names, closest in meaning first.
            order = "m.embedding <=> :q" if spec.vector is not None else "m.occurred_at"
            ctes.append(
                f"dated AS (SELECT m.id FROM memory m WHERE {filters} AND m.occurred_at >= :from "
                f"AND m.occurred_at < :to ORDER BY {order} LIMIT :text_limit)"
            )
            sources.append("SELECT id FROM dated")
        if not sources:
            return []
        similarity = "1 - (m.embedding <=> :q)" if spec.vector is not None else "NULL::float"
        vector_rank = "vec.vector_rank" if spec.vector is not None else "NULL::bigint"
        text_cols = (
            "txt.lexical, txt.text_rank"
            if tsquery
            else "NULL::float AS lexical, NULL::bigint AS text_rank"
        )
        joins = " ".join(
            part
            for part, on in (
                ("LEFT JOIN vec ON vec.id = m.id", spec.vector is not None),
                ("LEFT JOIN txt ON txt.id = m.id", bool(tsquery)),
            )
            if on
        )
        sql = (
            f"WITH {', '.join(ctes)}, hits AS ({' UNION '.join(sources)}) "
            f"SELECT {_COLUMNS}, {similarity} AS similarity, {vector_rank} AS vector_rank, "
            f"{text_cols} FROM hits JOIN memory m ON m.id = hits.id {joins}"
        )
        statement = text(sql).columns(embedding=VectorType())
        params: dict[str, object] = {
            "agent": spec.agent_id,
            "kinds": list(spec.kinds),
            "vector_limit": spec.vector_limit,
            "text_limit": spec.text_limit,
        }
        if spec.vector is not None:
            statement = statement.bindparams(bindparam("q", type_=VectorType()))
            params["q"] = spec.vector
        if tsquery:
            params.update(
                words=spec.words,
                corpus=max(spec.corpus_size, 1),
                max_terms=32,
                common=spec.common_word_memories,
            )
        if spec.metadata:
            params["metadata"] = json.dumps(spec.metadata)
        if spec.period is not None:
            params.update({"from": spec.period.start, "to": spec.period.end})
        if spec.vector is not None and not spec.exact:
            # pgvector >= 0.8: keep scanning the graph until enough rows pass the filter.
            await self.session.execute(
                text(
                    "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), "
                    "set_config('hnsw.ef_search', :ef, true)"
                ),
                {"ef": str(max(spec.vector_limit, 40))},
            )
        rows = (await self.session.execute(statement, params)).all()
        return [_candidate(row) for row in rows]

    async def neighbours(
        self,
        agent_id: uuid.UUID,
        hit_ids: Sequence[uuid.UUID],
        vector: list[float] | None,
        window: int,
    ) -> list[Candidate]:
        """Episodes just before and after each hit on the agent's timeline."""
        if not hit_ids or window <= 0:
            return []
        similarity = "1 - (m.embedding <=> :q)" if vector is not None else "NULL::float"
        side = (
            "(SELECT m.id FROM memory m WHERE m.agent_id = h.agent_id AND m.kind = 'episode' "
            "AND (m.occurred_at, m.seq) {op} (h.occurred_at, h.seq) "
            "ORDER BY m.occurred_at {dir}, m.seq {dir} LIMIT :window)"
        )
        sql = (
            f"SELECT {_COLUMNS}, {similarity} AS similarity, NULL::float AS lexical, "
            "h.id AS parent FROM memory h CROSS JOIN LATERAL ("
            f"{side.format(op='<', dir='DESC')} UNION ALL {side.format(op='>', dir='ASC')}"
            ") n JOIN memory m ON m.id = n.id WHERE h.id = ANY(:hits) AND h.agent_id = :agent"
        )
        statement = (
            text(sql)
            .columns(embedding=VectorType())
            .bindparams(bindparam("hits", type_=ARRAY(Uuid())))
        )
        params: dict[str, object] = {"hits": list(hit_ids), "agent": agent_id, "window": window}
        if vector is not None:
            statement = statement.bindparams(bindparam("q", type_=VectorType()))
            params["q"] = vector
        rows = (await self.session.execute(statement, params)).all()
        return [_candidate(row, neighbour_of=row._mapping["parent"]) for row in rows]

    async def standing(
        self, agent_id: uuid.UUID, limit: int = 50
    ) -> tuple[list[Censor], list[tuple[float, str]]]:
        """The active censors, oldest first, and the (confidence, outcome) of the latest
        reviewed decisions: what every build holds besides its search results, in one query."""
        columns = (Memory.id, Memory.fields, Memory.confidence, Memory.outcome)
        censors = (
            select(literal("censor").label("part"), *columns)
            .where(
                Memory.agent_id == agent_id,
                Memory.kind == "censor",
                Memory.state.in_(("created", "active", "escalated")),
            )
            .order_by(Memory.created_at, Memory.id)
            .limit(limit)
        )
        reviewed = (
            select(literal("reviewed").label("part"), *columns)
            .where(
                Memory.agent_id == agent_id, Memory.kind == "decision", Memory.state == "reviewed"
            )
            .order_by(Memory.updated_at.desc())
            .limit(limit)
        )
        rows = (await self.session.execute(union_all(censors, reviewed))).all()
        active = [
            Censor(
                row.id,
                str(row.fields.get("action", "warn")),
                str(row.fields["trigger_pattern"]),
                str(row.fields["reason"]),
            )
            for row in rows
            if row.part == "censor"
        ]
        outcomes = [
            (float(row.confidence or 0.0), str(row.outcome))
            for row in rows
            if row.part == "reviewed" and row.outcome is not None
        ]
        return active, outcomes

    async def add_build(self, build: ContextBuild) -> None:
        self.session.add(build)
        await self.session.flush()

    async def get_build(
        self, tenant_id: uuid.UUID, build_id: uuid.UUID, *, for_update: bool = False
    ) -> ContextBuild | None:
        query = select(ContextBuild).where(
            ContextBuild.id == build_id, ContextBuild.tenant_id == tenant_id
        )
        if for_update:
            query = query.with_for_update()
        return await self.session.scalar(query)

    async def texts(self, memory_ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, str]:
        """The summary of each memory, to match an LLM reply against."""
        rows = await self.session.execute(
            select(Memory.id, Memory.summary).where(Memory.id.in_(memory_ids))
        )
        return {row[0]: row[1] for row in rows}

    async def record_references(self, memory_ids: Sequence[uuid.UUID]) -> None:
        """Count a reference to each memory (feedback and expand)."""
        if not memory_ids:
            return
        await self.session.execute(
            update(Memory)
            .where(Memory.id.in_(memory_ids))
            .values(reference_count=Memory.reference_count + 1, last_referenced_at=utcnow())
        )
