"""The database engine and session factory, and the per-request transaction."""

import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Annotated, Any

import pydantic_core
from fastapi import Depends, Request
from sqlalchemy import MetaData, event
from sqlalchemy.exc import DBAPIError, DisconnectionError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.orm import DeclarativeBase

from app.core.vector import use_binary_vectors


def _json_text(value: object) -> str:
    return pydantic_core.to_json(value).decode()


NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    """Declarative base for every table, with a constraint naming convention."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


@dataclass
class Database:
    """An engine and its session factory."""

    engine: AsyncEngine
    sessionmaker: async_sessionmaker[AsyncSession]

    @classmethod
    def connect(
        cls,
        url: str,
        *,
        pool_size: int = 10,
        max_overflow: int = 10,
        server_settings: Mapping[str, str] | None = None,
    ) -> "Database":
        """Create the engine for a PostgreSQL URL (asyncpg driver); `server_settings` are set
        on every connection."""
        engine = create_async_engine(
            url,
            pool_size=pool_size,
            max_overflow=max_overflow,
            # Statements are prepared once per connection; a plan made for the actual values
            # (the agent, its size, the query's words) beats a generic one on skewed data.
            connect_args={
                # A server that accepts no connection (hung, or its address unreachable)
                # fails the request in seconds instead of holding it for asyncpg's minute.
                "timeout": 5,
                "server_settings": {
                    "plan_cache_mode": "force_custom_plan",
                    **(server_settings or {}),
                },
            },
            # JSON columns (a build's manifest is tens of kilobytes) go through pydantic-core's
            # serializer and parser, several times faster than the standard library's.
            json_serializer=_json_text,
            json_deserializer=pydantic_core.from_json,
        )
        use_binary_vectors(engine)
        ping_on_checkout(engine)
        return cls(engine, async_sessionmaker(engine, expire_on_commit=False))

    async def dispose(self) -> None:
        """Close every pooled connection."""
        await self.engine.dispose()


# A pooled connection given back this recently is handed out without a ping (HikariCP, the
# JVM's common pool, trusts one used in the last 500 ms the same way).
TRUSTED_FOR_SECONDS = 0.5


def ping_on_checkout(engine: AsyncEngine) -> None:
    """Check a pooled connection before a request uses it, unless it was in use a moment ago:
    one empty statement (SQLAlchemy's own `pool_pre_ping` makes three of it, a transaction
    around the statement). One that fails is replaced by a new connection, so a request
    started after the database came back does not fail on a connection from before.
    A connection the database drops within the trusted moment fails its request (503, to be
    retried), and the pool renews every connection it holds."""

    @event.listens_for(engine.sync_engine, "checkin")
    def _returned(_dbapi_connection: Any, record: Any) -> None:
        record.info["returned_at"] = time.monotonic()

    @event.listens_for(engine.sync_engine, "checkout")
    def _ping(dbapi_connection: Any, record: Any, _proxy: object) -> None:
        returned_at = record.info.get("returned_at")
        if returned_at is not None and time.monotonic() - returned_at < TRUSTED_FOR_SECONDS:
            return
        try:
            dbapi_connection.run_async(lambda connection: connection.fetchrow(";"))
        except Exception as exc:  # any failure: the pool tries a new connection instead
            raise DisconnectionError(str(exc)) from exc


# SQLSTATEs after which the same request is likely to pass if retried: class 08 (connection
# exceptions), admin shutdown, crash shutdown, cannot connect now (starting or stopping), too
# many connections, a serialization failure, a lost deadlock, a lock not available in time.
_RETRYABLE_STATES = ("08", "57P01", "57P02", "57P03", "53300", "40001", "40P01", "55P03")
_DRIVERS = ("asyncpg", "sqlalchemy")


def database_unavailable(exc: BaseException) -> bool:
    """Whether an error says the database cannot serve this now (gone, restarting, refusing
    connections, no pooled connection free in time, a lost deadlock) rather than that the
    request or our code is at fault. Only the error's own causes are read, not the errors it
    was raised while handling: a bug in an error path stays a bug."""
    current: BaseException | None = exc
    for _ in range(10):
        if current is None:
            return False
        if isinstance(current, DBAPIError) and current.connection_invalidated:
            return True
        if isinstance(current, PoolTimeout):
            return True
        if isinstance(current, OSError) and _raised_by_driver(current):
            return True  # connecting failed: refused, no socket, timed out
        sqlstate = getattr(current, "sqlstate", None)
        if isinstance(sqlstate, str) and sqlstate.startswith(_RETRYABLE_STATES):
            return True
        orig = current.orig if isinstance(current, DBAPIError) else None
        current = orig if isinstance(orig, BaseException) else current.__cause__
    return False


def _raised_by_driver(exc: BaseException) -> bool:
    """Whether the error passed through the database driver (not, say, a file of ours)."""
    trace = exc.__traceback__
    while trace is not None:
        if str(trace.tb_frame.f_globals.get("__name__", "")).startswith(_DRIVERS):
            return True
        trace = trace.tb_next
    return False


def asyncpg_url(url: str) -> str:
    """Accept postgres:// and postgresql:// URLs and point them at the asyncpg driver."""
    for prefix in ("postgresql+asyncpg://", "postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+asyncpg://" + url[len(prefix) :]
    return url


async def get_db_session(request: Request) -> AsyncIterator[AsyncSession]:
    """One transaction per request, committed before the response is sent."""
    database: Database = request.app.state.database
    async with database.sessionmaker.begin() as session:
        yield session


DbSession = Annotated[AsyncSession, Depends(get_db_session, scope="function")]
