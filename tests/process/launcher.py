"""Running `python -m app` as real processes for the tests in this folder: launched with the
network guard, stopped whatever happens, their output kept in files."""

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest

from tests.factories import fact
from tests.netguard.sitecustomize import ENV_FLAG

REPO = Path(__file__).resolve().parents[2]
KEY = re.compile(r"ce_[0-9a-f]{8}_[A-Za-z0-9_-]{20,}")
START_DEADLINE = 60.0
NETGUARD = REPO / "tests" / "netguard"
EMBED_DEADLINE = 30.0
STOP_DEADLINE = 30.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def service_env(data_dir: Path, port: int | None = None, **settings: str) -> dict[str, str]:
    """This environment without any CE_ setting (so no database URL), plus the given ones."""
    env = {
        name: value
        for name, value in os.environ.items()
        # XDG_RUNTIME_DIR may point at the test run's own server; each data dir uses its own.
        if not name.startswith("CE_") and name != "XDG_RUNTIME_DIR"
    }
    # The same network block as this test process, through tests/netguard/sitecustomize.py.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(NETGUARD), env.get("PYTHONPATH")]))
    env[ENV_FLAG] = "1"
    env["CE_DATA_DIR"] = str(data_dir)
    env["CE_HOST"] = "127.0.0.1"
    env["CE_API__WORKERS"] = "1"  # one process per core is the default; a test asks for more
    if port is not None:
        env["CE_PORT"] = str(port)
    env.update(settings)
    return env


@dataclass
class Process:
    """A `python -m app` process whose output goes to files (pipes could fill up and block)."""

    name: str
    popen: "subprocess.Popen[bytes]"
    stdout: Path
    stderr: Path

    def err(self) -> str:
        return self.stderr.read_text(errors="replace")

    def out(self) -> str:
        return self.stdout.read_text(errors="replace")

    def report(self) -> str:
        return (
            f"--- {self.name} stderr ---\n{self.err()[-4000:]}\n"
            f"--- {self.name} stdout ---\n{self.out()[-4000:]}"
        )

    def check_alive(self) -> None:
        code = self.popen.poll()
        if code is not None:
            pytest.fail(f"{self.name} exited with {code}\n{self.report()}")

    def terminate(self) -> int:
        """SIGTERM, and the exit code within the deadline."""
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
        try:
            return self.popen.wait(STOP_DEADLINE)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{self.name} ignored SIGTERM for {STOP_DEADLINE} s\n{self.report()}")


@contextlib.contextmanager
def launch(command: str, env: dict[str, str], logs: Path, name: str) -> Iterator[Process]:
    """Start `python -m app <command>`; whatever happens, it does not outlive the block."""
    logs.mkdir(parents=True, exist_ok=True)
    stdout, stderr = logs / f"{name}.out", logs / f"{name}.err"
    with stdout.open("wb") as out, stderr.open("wb") as err:
        popen = subprocess.Popen(
            [sys.executable, "-m", "app", command], cwd=REPO, env=env, stdout=out, stderr=err
        )
    process = Process(name, popen, stdout, stderr)
    try:
        yield process
    finally:
        if popen.poll() is None:
            popen.send_signal(signal.SIGTERM)
            try:
                popen.wait(STOP_DEADLINE)
            except subprocess.TimeoutExpired:
                popen.kill()
                popen.wait()


def cli(env: dict[str, str], *args: str) -> "subprocess.CompletedProcess[str]":
    """Run a short `python -m app` command to its end."""
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=START_DEADLINE,
        check=False,
    )


def wait_until(
    what: str, condition: Callable[[], bool], deadline: float, process: Process
) -> float:
    """Poll until `condition` holds; fail with the process's output if it dies or time runs out."""
    started = time.monotonic()
    while not condition():
        process.check_alive()
        if time.monotonic() - started > deadline:
            pytest.fail(f"{what}: not within {deadline} s\n{process.report()}")
        time.sleep(0.1)
    return time.monotonic() - started


def wait_ready(server: Process, http: httpx.Client) -> float:
    def ready() -> bool:
        try:
            return http.get("/readyz").status_code == 200
        except httpx.TransportError:
            return False

    return wait_until("GET /readyz", ready, START_DEADLINE, server)


def client(port: int, key: str | None = None) -> httpx.Client:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.Client(
        base_url=f"http://127.0.0.1:{port}", headers=headers, timeout=10.0, trust_env=False
    )


def memory(http: httpx.Client, memory_id: str) -> dict[str, Any]:
    response = http.get(f"/memories/{memory_id}")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def wait_embedded(http: httpx.Client, memory_id: str, worker: Process) -> float:
    def embedded() -> bool:
        return memory(http, memory_id)["provenance"]["embedded_at"] is not None

    return wait_until("embedding", embedded, EMBED_DEADLINE, worker)


def postgres_of(data_dir: Path) -> list[str]:
    """Processes running with the embedded server's data directory on their command line."""
    pgdata = str((data_dir / "pg").resolve())
    found = []
    for proc in psutil.process_iter(attrs=["pid", "cmdline"]):
        cmdline: list[str] = proc.info["cmdline"] or []  # None for zombies and the unreadable
        if any(pgdata in part for part in cmdline):
            found.append(f"{proc.info['pid']}: {' '.join(cmdline)}")
    return found


def assert_postgres_stopped(data_dir: Path) -> None:
    # pg_ctl stop -w has returned, but give the postmaster's exit a moment to be reaped.
    deadline = time.monotonic() + 5.0
    while (left := postgres_of(data_dir)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert left == [], "the embedded PostgreSQL outlived the service"


def write_fact(http: httpx.Client, content: str) -> dict[str, Any]:
    response = http.put("/agents/newton", json={"identity": {"name": "Newton"}})
    assert response.status_code in (200, 201), response.text
    response = http.post("/agents/newton/memories", json=fact(content))
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body
