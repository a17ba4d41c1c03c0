"""Schema migrations with Alembic, run under an advisory lock so replicas can start together."""

from pathlib import Path

from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from alembic import command

ALEMBIC_INI = Path(__file__).resolve().parents[2] / "alembic.ini"
_LOCK_KEY = 7_241_530_117  # any constant; every replica must use the same one


def alembic_config(dimensions: int) -> Config:
    """The Alembic configuration, carrying the embedding dimension for the schema."""
    config = Config(str(ALEMBIC_INI))
    config.attributes["embedding_dimensions"] = dimensions
    return config


async def upgrade(engine: AsyncEngine, dimensions: int) -> None:
    """Bring the schema to the newest revision; concurrent callers wait for the first."""
    async with engine.connect() as connection:
        await connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": _LOCK_KEY})
        try:
            await connection.run_sync(_upgrade, dimensions)
            await connection.commit()
        except BaseException:
            await connection.rollback()  # so that the unlock below runs and the cause shows
            raise
        finally:
            await connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": _LOCK_KEY})
            await connection.commit()


def _upgrade(connection: Connection, dimensions: int) -> None:
    config = alembic_config(dimensions)
    config.attributes["connection"] = connection
    command.upgrade(config, "head")


def head_revision() -> str | None:
    """The newest migration shipped with this code (reads the scripts: call once at start)."""
    return ScriptDirectory.from_config(alembic_config(0)).get_current_head()


def _current_revision(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


async def is_at_head(engine: AsyncEngine, head: str | None) -> bool:
    """Whether the database schema is at `head`."""
    async with engine.connect() as connection:
        return await connection.run_sync(_current_revision) == head


async def stored_dimensions(engine: AsyncEngine) -> int | None:
    """The dimension of the embedding column, or None before the first migration."""
    async with engine.connect() as connection:
        value = await connection.scalar(
            text(
                "SELECT atttypmod FROM pg_attribute "
                "WHERE attrelid = to_regclass('memory') AND attname = 'embedding'"
            )
        )
    return int(value) if value is not None else None
