"""pgvector columns sent in binary: no text formatting or parsing of 384 floats per row."""

from typing import Any

import numpy as np
from numpy.typing import NDArray
from pgvector import Vector as PgVector
from pgvector.asyncpg import register_vector
from sqlalchemy import event
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.types import UserDefinedType

Embedding = NDArray[np.float32]


class VectorType(UserDefinedType[Embedding]):
    """A `vector` column read as a float32 numpy array and written from any float sequence."""

    cache_ok = True

    def __init__(self, dimensions: int | None = None) -> None:
        super().__init__()
        self.dimensions = dimensions

    def get_col_spec(self, **kw: Any) -> str:
        return "VECTOR" if self.dimensions is None else f"VECTOR({self.dimensions})"

    def bind_processor(self, dialect: Dialect) -> Any:
        def process(value: Any) -> Embedding | None:
            return None if value is None else np.asarray(value, dtype=np.float32)

        return process

    def result_processor(self, dialect: Dialect, coltype: object) -> Any:
        def process(value: PgVector | None) -> Embedding | None:
            return None if value is None else value.to_numpy()

        return process


def use_binary_vectors(engine: AsyncEngine) -> None:
    """Register pgvector's binary codec on every new connection of the engine."""

    @event.listens_for(engine.sync_engine, "connect")
    def _register(dbapi_connection: Any, _record: object) -> None:
        try:
            dbapi_connection.run_async(register_vector)
        except ValueError:
            # No `vector` type before the first migration: the pool is renewed after migrating.
            return
