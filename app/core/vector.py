"""pgvector columns sent in binary: no text formatting or parsing of 384 floats per row."""

import struct
from collections.abc import Sequence
from typing import Any

import asyncpg
import numpy as np
from numpy.typing import NDArray
from sqlalchemy import event
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.types import UserDefinedType

Embedding = NDArray[np.float32]

# pgvector's binary format: dimensions and a reserved zero as big-endian uint16, then the values
# as big-endian float32.
_HEADER = struct.Struct(">HH")
_BIG_ENDIAN_FLOAT32 = np.dtype(">f4")


def encode_vector(values: Sequence[float] | Embedding) -> bytes:
    array = np.asarray(values, dtype=_BIG_ENDIAN_FLOAT32)
    return _HEADER.pack(len(array), 0) + array.tobytes()


def decode_vector(data: bytes) -> Embedding:
    """A `vector` as a native float32 array, in one numpy call (a build reads hundreds)."""
    dimensions, _reserved = _HEADER.unpack_from(data)
    big_endian = np.frombuffer(data, dtype=_BIG_ENDIAN_FLOAT32, count=dimensions, offset=4)
    return big_endian.astype(np.float32)


async def register_vector(connection: asyncpg.Connection) -> None:
    """Send and read `vector` values in binary, as numpy float32 arrays."""
    await connection.set_type_codec(
        "vector", encoder=encode_vector, decoder=decode_vector, format="binary"
    )


class VectorType(UserDefinedType[Embedding]):
    """A `vector` column read as a float32 numpy array and written from any float sequence."""

    cache_ok = True

    def __init__(self, dimensions: int | None = None) -> None:
        super().__init__()
        self.dimensions = dimensions

    def get_col_spec(self, **kw: Any) -> str:
        return "VECTOR" if self.dimensions is None else f"VECTOR({self.dimensions})"

    def bind_processor(self, dialect: Dialect) -> None:
        return None  # the connection's codec writes any float sequence

    def result_processor(self, dialect: Dialect, coltype: object) -> None:
        return None  # the connection's codec reads float32 arrays already


def use_binary_vectors(engine: AsyncEngine) -> None:
    """Register pgvector's binary codec on every new connection of the engine."""

    @event.listens_for(engine.sync_engine, "connect")
    def _register(dbapi_connection: Any, _record: object) -> None:
        try:
            dbapi_connection.run_async(register_vector)
        except ValueError:
            # No `vector` type before the first migration: the pool is renewed after migrating.
            return
