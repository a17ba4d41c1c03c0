"""The anchors of memories written before a change to the way anchors are found are found again
(the migration that left out everyday words runs this): a word that ties memories no more is
gone from them, their names stay."""

import httpx
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from app.maintenance.anchoring import find_anchors_again
from app.memories.models import Memory
from tests.factories import Tenancy, fact, put_agent, write


async def test_anchors_written_before_are_found_again(
    client: httpx.AsyncClient, tenancy: Tenancy, connection: AsyncConnection
) -> None:
    await put_agent(client, tenancy)
    text = "The migration rewrote the billing table in pgvector; retry when the token expires."
    written = await write(client, tenancy, fact(text))
    unchanged = await write(client, tenancy, fact("Redis runs beside Postgres."))
    # As an older version found them: everyday words the embedding model's vocabulary lacks.
    older = ["rewrote", "pgvector", "retry", "expires"]
    await connection.execute(update(Memory).where(Memory.id == written["id"]).values(anchors=older))

    assert await connection.run_sync(find_anchors_again, 1) == 1  # a batch of one

    rows = await connection.execute(select(Memory.id, Memory.anchors))
    anchors = {str(memory_id): found for memory_id, found in rows}
    assert anchors[written["id"]] == ["pgvector"]
    assert anchors[unchanged["id"]] == ["redis", "postgres"]
