"""The floor of a build: one query embedding plus one raw hybrid SQL query, nothing else."""

import re
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import asyncpg
from pgvector.asyncpg import register_vector

from app.providers.embeddings import LocalEmbedder

_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def or_query(text: str, max_words: int = 32) -> str:
    """A to_tsquery expression matching any word of the text (PostgreSQL drops stop words)."""
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(text) if len(w) > 1))
    return " | ".join(words[:max_words])


# What a hybrid search asks PostgreSQL for: the agent's nearest 60 by cosine and its best 60 by
# full-text rank, joined back to the rows it ranks. `{order}` picks exact scan or HNSW, `{words}`
# how the input's words match (see `Words`).
_HYBRID = """
WITH vec AS (
    SELECT id FROM memory
    WHERE agent_id = $1 AND embedding IS NOT NULL
    ORDER BY {order} LIMIT $4
), txt AS (
    SELECT id FROM memory, {words}('english', $3) query
    WHERE agent_id = $1 AND search_document @@ query
    ORDER BY ts_rank_cd(search_document, query) DESC LIMIT $5
)
SELECT m.id, m.kind, m.micro, m.summary, m.occurred_at, m.embedding <=> $2::vector AS distance
FROM memory m WHERE m.id IN (SELECT id FROM vec UNION SELECT id FROM txt)
"""


# "any": a memory holding any of the input's words (to_tsquery of the words joined by |), which
# is what the service's word search looks for, but ranked over every match: common words make
# that slow on big agents. "all": only memories holding every word (plainto_tsquery), the query
# of pgvector's hybrid search example: cheap at every size, and what the ratio is best read
# against.
Words = Literal["any", "all"]


@dataclass(frozen=True)
class FloorTimes:
    """Milliseconds per query: the embedding, the SQL, and both."""

    embed_ms: list[float]
    sql_ms: list[float]
    total_ms: list[float]
    rows_mean: float


async def agent_uuid(connection: asyncpg.Connection, name: str) -> uuid.UUID:
    value = await connection.fetchval("SELECT id FROM agent WHERE name = $1", name)
    if not isinstance(value, uuid.UUID):
        raise LookupError(f"agent {name!r} not found")
    return value


async def measure_floor(
    socket_dir: Path,
    database: str,
    agent_name: str,
    queries: Sequence[str],
    embedder: LocalEmbedder,
    exact: bool,
    words: Words = "any",
    limit: int = 60,
) -> FloorTimes:
    """Embed each query on this process and run the hybrid SQL for the agent, one at a time."""
    connection = await asyncpg.connect(host=str(socket_dir), user="postgres", database=database)
    try:
        await register_vector(connection)  # binary, as the service sends it
        agent = await agent_uuid(connection, agent_name)
        if exact:
            order = "(embedding <=> $2::vector) + 0"  # as the service: no index, exact order
        else:
            order = "embedding <=> $2::vector"
            await connection.execute("SET hnsw.iterative_scan = relaxed_order")
        tsquery = "to_tsquery" if words == "any" else "plainto_tsquery"
        statement = await connection.prepare(_HYBRID.format(order=order, words=tsquery))
        embed_ms, sql_ms, rows = [], [], 0
        for query in queries:
            started = time.perf_counter()
            vector = embedder.embed_sync([query])[0]
            embedded = time.perf_counter()
            text = (or_query(query) or "nothing") if words == "any" else query
            found = await statement.fetch(agent, vector, text, limit, limit)
            done = time.perf_counter()
            rows += len(found)
            embed_ms.append((embedded - started) * 1000)
            sql_ms.append((done - embedded) * 1000)
    finally:
        await connection.close()
    return FloorTimes(
        embed_ms=embed_ms,
        sql_ms=sql_ms,
        total_ms=[e + s for e, s in zip(embed_ms, sql_ms, strict=True)],
        rows_mean=rows / max(len(queries), 1),
    )
