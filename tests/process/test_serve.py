"""The service as a newcomer runs it: real processes, the embedded PostgreSQL, real HTTP."""

import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
import pytest
from prometheus_client.parser import text_string_to_metric_families

from app.core.job_models import TASKS
from tests.process.launcher import (
    KEY,
    assert_postgres_stopped,
    cli,
    client,
    free_port,
    launch,
    memory,
    service_env,
    wait_embedded,
    wait_ready,
    write_fact,
)


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
    metrics: str
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
            metrics = http.get("/metrics").text
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
        metrics=metrics,
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


def test_every_task_shows_its_failed_jobs_from_the_start(first_run: FirstRun) -> None:
    """At 0 before the first failure: an alert's increase() sees the series rise from 0 (a series
    that appears at 1 has no increase)."""
    failed = {
        sample.labels["task"]: sample.value
        for family in text_string_to_metric_families(first_run.metrics)
        for sample in family.samples
        if sample.name == "ce_jobs_processed_total" and sample.labels["outcome"] == "failed"
    }
    # Every task the worker runs: all but the LLM summaries of memories (no LLM is configured,
    # so summaries are written with the memory and that task has no handler) and the rescoring
    # model's vectors (none is set).
    assert set(failed) == set(TASKS) - {"summarize", "rescore"}
    assert set(failed.values()) == {0.0}


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


# The builds' count in /metrics (each build observes its total once).
BUILDS_COUNTED = 'ce_context_build_seconds_count{stage="total"}'
NEW_FACTS = 'ce_memories{kind="fact",state="new"}'


def test_two_api_processes_share_the_port_the_data_and_the_first_key(tmp_path: Path) -> None:
    """`serve --workers 2` (here CE_API__WORKERS=2) on an empty data dir: one key is made, both
    processes answer on the port, a memory written through one is embedded and built from,
    /metrics counts the builds of both whichever answers, and SIGTERM stops them and the
    embedded PostgreSQL."""
    data_dir, logs, port = tmp_path / "data", tmp_path / "logs", free_port()
    env = service_env(data_dir, port, CE_API__WORKERS="2")
    with launch("serve", env, logs, "serve-2") as server:
        with client(port) as anonymous:
            wait_ready(server, anonymous)
        key = (data_dir / "api-key").read_text().strip()
        with client(port, key) as http:
            written = write_fact(http, CONTENT)
            wait_embedded(http, written["id"], server)
            for _ in range(10):  # new connections: each may be accepted by either process
                with client(port, key) as fresh:
                    build = fresh.post(
                        "/context/build",
                        json={"agent_id": "newton", "input": "Where does the data live?"},
                    )
                    assert build.status_code == 200, build.text
                    assert CONTENT in build.json()["context"]
            for _ in range(6):
                with client(port) as fresh:
                    assert f"{BUILDS_COUNTED} 10.0" in fresh.get("/metrics").text
            # A count that falls to none shows 0 from either process (not its last value).
            assert f"{NEW_FACTS} 1.0" in http.get("/metrics").text
            patched = http.patch(f"/memories/{written['id']}", json={"action": "invalidate"})
            assert patched.status_code == 200, patched.text
            for _ in range(6):
                with client(port) as fresh:
                    assert f"{NEW_FACTS} 0.0" in fresh.get("/metrics").text
        apps = [p for p in psutil.Process(server.popen.pid).children() if "python" in p.name()]
        assert len(apps) >= 2, server.report()
        assert "(2 processes)" in server.err()
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
