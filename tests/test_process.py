"""The service as a newcomer runs it: real processes, the embedded PostgreSQL, real HTTP."""

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

REPO = Path(__file__).resolve().parent.parent
KEY = re.compile(r"ce_[0-9a-f]{8}_[A-Za-z0-9_-]{20,}")
START_DEADLINE = 60.0
NETGUARD = Path(__file__).resolve().parent / "netguard"
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


@dataclass(frozen=True)
class FirstRun:
    data_dir: Path
    logs: Path
    stderr: str
    key: str
    key_file_mode: int
    written: dict[str, Any]
    listed: list[dict[str, Any]]
    embedded: dict[str, Any]
    seconds_to_ready: float
    seconds_to_embed: float
    exit_code: int


CONTENT = "The embedded PostgreSQL keeps its data in the data directory between restarts."


@pytest.fixture(scope="module")
def first_run(tmp_path_factory: pytest.TempPathFactory) -> FirstRun:
    """`python -m app serve` on an empty data dir: key, one memory, embedded, then SIGTERM."""
    root = tmp_path_factory.mktemp("newcomer")
    data_dir, logs, port = root / "data", root / "logs", free_port()
    with launch("serve", service_env(data_dir, port), logs, "serve-1") as server:
        with client(port) as anonymous:
            seconds_to_ready = wait_ready(server, anonymous)
        key = (data_dir / "api-key").read_text().strip()
        with client(port, key) as http:
            written = write_fact(http, CONTENT)
            written_at = time.monotonic()
            listed = http.get("/agents/newton/memories").json()["items"]
            wait_embedded(http, written["id"], server)
            seconds_to_embed = time.monotonic() - written_at
            embedded = memory(http, written["id"])
        exit_code = server.terminate()
        stderr = server.err()
    print(
        f"\nserve (first start): ready after {seconds_to_ready:.2f} s; a written memory was "
        f"embedded by the in-process worker {seconds_to_embed:.2f} s after the write returned"
    )
    return FirstRun(
        data_dir=data_dir,
        logs=logs,
        stderr=stderr,
        key=key,
        key_file_mode=(data_dir / "api-key").stat().st_mode & 0o777,
        written=written,
        listed=listed,
        embedded=embedded,
        seconds_to_ready=seconds_to_ready,
        seconds_to_embed=seconds_to_embed,
        exit_code=exit_code,
    )


def test_first_start_prints_the_key_and_keeps_it_in_the_data_dir(first_run: FirstRun) -> None:
    assert KEY.fullmatch(first_run.key)
    assert first_run.key in first_run.stderr
    assert str(first_run.data_dir / "api-key") in first_run.stderr
    assert first_run.key_file_mode == 0o600


def test_a_written_memory_is_listed_at_once_with_its_representations(
    first_run: FirstRun,
) -> None:
    written = first_run.written
    assert written["provenance"]["embedded_at"] is None  # the worker has not run yet
    [listed] = [item for item in first_run.listed if item["id"] == written["id"]]
    representations = listed["representations"]
    assert CONTENT in representations["full"]["text"]
    for level in ("micro", "summary", "full"):
        assert representations[level]["text"]
        assert representations[level]["tokens"] > 0


def test_the_in_process_worker_embeds_the_memory(first_run: FirstRun) -> None:
    provenance = first_run.embedded["provenance"]
    assert provenance["embedded_at"] is not None
    assert provenance["embedding_model"]
    assert [(job["task"], job["state"]) for job in provenance["jobs"]] == [("embed", "done")]


def test_sigterm_exits_0_and_stops_the_embedded_postgres(first_run: FirstRun) -> None:
    assert first_run.exit_code == 0, first_run.stderr
    assert "Application shutdown complete" in first_run.stderr
    assert_postgres_stopped(first_run.data_dir)


def test_restart_keeps_key_and_data_and_key_commands_work(first_run: FirstRun) -> None:
    data_dir, port = first_run.data_dir, free_port()
    env = service_env(data_dir, port)

    # `keys create` on the stopped data dir starts the embedded server itself, then stops it.
    created = cli(env, "keys", "create", "--tenant", "acme", "--name", "ci")
    assert created.returncode == 0, created.stderr
    [ci_key] = KEY.findall(created.stdout)
    prefix = ci_key[:11]
    assert_postgres_stopped(data_dir)

    with launch("serve", env, first_run.logs, "serve-2") as server:
        with client(port) as anonymous:
            wait_ready(server, anonymous)
        stderr = server.err()
        assert f"API key: see {data_dir / 'api-key'}" in stderr
        assert KEY.search(stderr) is None, "a restart must not issue or print a key"
        assert (data_dir / "api-key").read_text().strip() == first_run.key

        with client(port, first_run.key) as http:
            again = memory(http, first_run.written["id"])
            assert again["representations"] == first_run.embedded["representations"]
            assert (
                again["provenance"]["embedded_at"]
                == first_run.embedded["provenance"]["embedded_at"]
            )

        # The key commands join the running server's PostgreSQL and leave it running.
        listed = cli(env, "keys", "list")
        assert listed.returncode == 0, listed.stderr
        [ci_line] = [line for line in listed.stdout.splitlines() if "name=ci" in line]
        assert prefix in ci_line
        assert "tenant=acme" in ci_line
        assert "active" in ci_line
        assert ci_key not in listed.stdout
        assert first_run.key not in listed.stdout

        with client(port, ci_key) as acme:
            response = acme.get("/agents/x")
            assert response.status_code == 404, response.text
            assert response.headers["content-type"] == "application/problem+json"

            revoked = cli(env, "keys", "revoke", prefix)
            assert revoked.returncode == 0, revoked.stderr
            assert "Revoked 1 key(s)." in revoked.stdout
            server.check_alive()

            response = acme.get("/agents/x")
            assert response.status_code == 401, response.text
            assert response.headers["content-type"] == "application/problem+json"

        with client(port, first_run.key) as http:
            assert http.get("/agents/newton").status_code == 200  # other keys still work

        assert server.terminate() == 0, server.report()
    assert_postgres_stopped(data_dir)


def test_a_separate_worker_process_embeds_what_the_server_queued(
    tmp_path: Path,
) -> None:
    data_dir, logs, port = tmp_path / "data", tmp_path / "logs", free_port()
    server_env = service_env(data_dir, port, CE_WORKER__IN_PROCESS="false")
    with launch("serve", server_env, logs, "serve") as server:
        with client(port) as anonymous:
            wait_ready(server, anonymous)
        key = (data_dir / "api-key").read_text().strip()
        with client(port, key) as http:
            written = write_fact(http, "Only the worker process computes embeddings here.")
            time.sleep(1.0)
            waiting = memory(http, written["id"])["provenance"]
            assert waiting["embedded_at"] is None
            assert [(job["task"], job["state"]) for job in waiting["jobs"]] == [("embed", "queued")]

            with launch("worker", service_env(data_dir), logs, "worker") as worker:
                seconds = wait_embedded(http, written["id"], worker)
                print(f"\nworker process: memory embedded {seconds:.2f} s after it started")
                assert "Worker running" in worker.err()
                assert worker.terminate() == 0, worker.report()
            done = memory(http, written["id"])["provenance"]
            assert [(job["task"], job["state"]) for job in done["jobs"]] == [("embed", "done")]
            # The worker left; the server's PostgreSQL still answers.
            assert http.get("/readyz").status_code == 200
        assert server.terminate() == 0, server.report()
    assert_postgres_stopped(data_dir)


def test_started_processes_cannot_reach_the_network(tmp_path: Path) -> None:
    probe = "import socket; socket.create_connection(('192.0.2.1', 80), timeout=1)"
    result = subprocess.run(
        [sys.executable, "-c", probe],
        env=service_env(tmp_path),
        capture_output=True,
        check=False,
        timeout=30,
    )
    assert result.returncode != 0
    assert b"tests may not" in result.stderr  # neither resolve nor connect
