"""Vectors go to PostgreSQL and back in pgvector's binary format, as float32 arrays."""

import numpy as np
from sqlalchemy import bindparam, text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.vector import VectorType


async def test_a_vector_reads_back_as_the_float32_values_written(
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    written = [0.25, -1.5, 3.0e-7, 1234.5]
    sql = "SELECT CAST(:v AS vector) AS v, CAST(:v AS vector)::text AS shown"
    statement = text(sql).bindparams(bindparam("v", type_=VectorType())).columns(v=VectorType())
    async with sessionmaker() as session:
        read, shown = (await session.execute(statement, {"v": written})).one()
    assert read.dtype == np.float32
    assert read.flags.writeable  # a copy, not a view of the driver's buffer
    assert read.tolist() == np.asarray(written, dtype=np.float32).tolist()
    # PostgreSQL saw the same numbers: the bytes were not read in the wrong order.
    assert [float(v) for v in shown.strip("[]").split(",")] == [0.25, -1.5, 3e-07, 1234.5]
