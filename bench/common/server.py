"""The service under test: `python -m app serve` on 127.0.0.1 with its own fresh data directory."""

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType

import httpx
import psutil

from bench.common.sampling import cpu_used

REPO = Path(__file__).resolve().parent.parent.parent


def export_commit(ref: str) -> Path:
    """The service's code (app/, alembic/) at a commit, in a temporary folder to run it from."""
    target = Path(tempfile.mkdtemp(prefix="ce-bench-src-"))
    archive = subprocess.run(
        ["git", "archive", "--format=tar", ref, "app", "alembic", "alembic.ini"],
        cwd=REPO,
        capture_output=True,
        check=True,
    )
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    return target


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Service:
    """Starts the service in a subprocess, waits until ready, and stops it with SIGTERM."""

    def __init__(
        self,
        env: Mapping[str, str] | None = None,
        keep_data: bool = False,
        commit: str | None = None,
    ) -> None:
        # With a commit, the service runs from an export of it, not from the working tree.
        self.source = export_commit(commit) if commit else REPO
        self._owns_source = commit is not None
        self.data_dir = Path(tempfile.mkdtemp(prefix="ce-bench-"))
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.api_key = ""
        self._extra_env = dict(env or {})
        self._keep_data = keep_data
        self._process: subprocess.Popen[bytes] | None = None
        self._log_path = self.data_dir / "server.log"

    @property
    def pid(self) -> int:
        if self._process is None:
            raise RuntimeError("the service is not running")
        return self._process.pid

    @property
    def pg_socket_dir(self) -> Path:
        """The embedded PostgreSQL keeps its socket in its data folder."""
        return self.data_dir / "pg"

    def start(self, timeout_seconds: float = 180.0) -> None:
        """Start `python -m app serve` and wait for /readyz and the API key file."""
        env = {
            **os.environ,
            "CE_DATA_DIR": str(self.data_dir),
            "CE_HOST": "127.0.0.1",
            "CE_PORT": str(self.port),
            "CE_LOG_LEVEL": "warning",
            # Benchmarks measure the corpus they load: retention, run by today's date, would
            # archive and retire memories dated at the corpora's own times as a run goes on.
            "CE_RETENTION__SCHEDULED": "false",
            "PYTHONPATH": os.pathsep.join(
                p for p in (str(self.source), os.environ.get("PYTHONPATH", "")) if p
            ),
            **self._extra_env,
        }
        env.pop("CE_DATABASE__URL", None)
        with self._log_path.open("wb") as log:
            self._process = subprocess.Popen(
                [sys.executable, "-m", "app", "serve"],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=self.source,
            )
        deadline = time.monotonic() + timeout_seconds
        key_file = self.data_dir / "api-key"
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"the service exited at start:\n{self.log_tail()}")
            if key_file.exists() and self._ready():
                self.api_key = key_file.read_text().strip()
                return
            time.sleep(0.25)
        tail = self.log_tail()
        self.stop()
        raise TimeoutError(f"the service was not ready in {timeout_seconds}s:\n{tail}")

    def log_tail(self, lines: int = 30) -> str:
        """The last lines the service wrote."""
        try:
            return "\n".join(self._log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def _ready(self) -> bool:
        try:
            return httpx.get(f"{self.base_url}/readyz", timeout=2.0).status_code == 200
        except httpx.HTTPError:
            return False

    def postgres_processes(self) -> list[psutil.Process]:
        """The postmaster of this data directory and its children."""
        pid_file = self.pg_socket_dir / "postmaster.pid"
        try:
            postmaster = psutil.Process(int(pid_file.read_text().split("\n", 1)[0]))
            return [postmaster, *postmaster.children(recursive=True)]
        except (OSError, ValueError, psutil.Error):
            return []

    def api_processes(self) -> list[psutil.Process]:
        """The service's process and its children (the API processes of `--workers N`)."""
        try:
            process = psutil.Process(self.pid)
            return [process, *process.children(recursive=True)]
        except (psutil.Error, RuntimeError):
            return []

    def cpu_seconds(self) -> tuple[float, float]:
        """CPU seconds used so far by the API processes and by PostgreSQL: the postmaster
        counts the backends that ended, the live ones count their own."""
        api = sum(cpu_used(process) for process in self.api_processes())
        postgres = self.postgres_processes()
        ended = 0.0
        if postgres:
            with contextlib.suppress(psutil.Error):
                times = postgres[0].cpu_times()
                ended = times.children_user + times.children_system
        return api, ended + sum(cpu_used(process) for process in postgres)

    def memory_now(self) -> tuple[float, float, float]:
        """Bytes now: the API processes' RSS, sum of PostgreSQL RSS, sum of PostgreSQL PSS."""
        api = 0.0
        for process in self.api_processes():
            with contextlib.suppress(psutil.Error):
                api += float(process.memory_info().rss)
        rss = pss = 0.0
        for process in self.postgres_processes():
            try:
                full = process.memory_full_info()
            except psutil.Error:
                continue  # a backend that ended between listing and reading
            rss += full.rss
            pss += full.pss
        return api, rss, pss

    def api_peak_rss_mib(self) -> float:
        """The kernel's high-water mark of the API process's resident memory (VmHWM)."""
        try:
            status = Path(f"/proc/{self.pid}/status").read_text()
        except OSError:
            return 0.0
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
        return 0.0

    def stop(self, timeout_seconds: float = 60.0) -> int | None:
        """SIGTERM, wait for a clean exit (it stops its PostgreSQL too), then remove the data."""
        code: int | None = None
        postgres = self.postgres_processes()
        if self._process is not None:
            if self._process.poll() is None:
                self._process.send_signal(signal.SIGTERM)
                try:
                    self._process.wait(timeout=timeout_seconds)
                except subprocess.TimeoutExpired:
                    self._process.kill()
                    self._process.wait()
            code = self._process.returncode
            self._process = None
        _gone, alive = psutil.wait_procs(postgres, timeout=30)
        for process in alive:  # the postmaster of our own data directory, left behind
            if process.pid == postgres[0].pid:
                process.terminate()
        if not self._keep_data:
            shutil.rmtree(self.data_dir, ignore_errors=True)
        if self._owns_source:
            shutil.rmtree(self.source, ignore_errors=True)
        return code

    def __enter__(self) -> "Service":
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
