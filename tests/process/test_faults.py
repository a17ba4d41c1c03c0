"""Faults heal by themselves, tried as an operator meets them: real `python -m app` processes on
the embedded PostgreSQL, killed with SIGKILL, and the fake OpenAI server refusing, hanging and
coming back."""

import contextlib
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from tests.fake_openai import FakeOpenAI
from tests.process.launcher import (
    Process,
    assert_postgres_stopped,
    client,
    free_port,
    launch,
    memory,
    postgres_of,
    service_env,
    wait_ready,
    wait_until,
    write_fact,
)

DEADLINE = 0.5  # CE_CONTEXT__EMBEDDING_DEADLINE_SECONDS in these tests
PROVIDER_TIMEOUT = (
    120  # CE_EMBEDDINGS__TIMEOUT_SECONDS where a hanging provider must not be waited for
)


def openai_settings(fake: FakeOpenAI, **more: str) -> dict[str, str]:
    """Embeddings from the fake server, with short pauses so outages end quickly here."""
    return {
        "CE_EMBEDDINGS__PROVIDER": "openai",
        "CE_EMBEDDINGS__BASE_URL": fake.url + "/v1",
        "CE_EMBEDDINGS__MODEL": "text-embedding-3-small",
        "CE_EMBEDDINGS__DIMENSIONS": "384",
        "CE_CONTEXT__EMBEDDING_DEADLINE_SECONDS": str(DEADLINE),
        "CE_BREAKER__MAX_PAUSE_SECONDS": "1",
        "CE_WORKER__BACKOFF_BASE_SECONDS": "0.2",
        "CE_WORKER__BACKOFF_MAX_SECONDS": "1",
        "CE_WORKER__MAX_ATTEMPTS": "2",  # an outage must not count against a job
        **more,
    }


def api_key(data_dir: Path) -> str:
    return (data_dir / "api-key").read_text().strip()


def embed_jobs(http: httpx.Client, memory_id: str) -> list[dict[str, Any]]:
    jobs: list[dict[str, Any]] = memory(http, memory_id)["provenance"]["jobs"]
    return [job for job in jobs if job["task"] == "embed"]


def wait_all_embedded(
    http: httpx.Client, ids: list[str], seconds: float, process: Process
) -> float:
    def done() -> bool:
        return all(memory(http, m)["provenance"]["embedded_at"] for m in ids)

    return wait_until("every memory embedded", done, seconds, process)


def timed_build(http: httpx.Client) -> tuple[float, dict[str, Any]]:
    started = time.monotonic()
    response = http.post(
        "/context/build",
        json={"agent_id": "newton", "input": "When do deploys freeze?", "budget": 500},
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return time.monotonic() - started, body


@contextlib.contextmanager
def refused(fake: FakeOpenAI) -> Iterator[None]:
    """The fake's port closed: connections are refused until the block ends; then it hangs."""
    port = fake.port
    fake.stop()
    try:
        yield
    finally:
        fake.hang()
        fake.start(port)


def write_facts(http: httpx.Client, contents: list[str]) -> list[str]:
    """Write facts in one batch (so one claim takes them all); their ids."""
    write_fact(http, contents[0])  # creates the agent
    response = http.post(
        "/agents/newton/memories/batch",
        json={"memories": [{"kind": "fact", "content": c} for c in contents[1:]]},
    )
    assert response.status_code == 201, response.text
    return [m["id"] for m in response.json()["memories"]]


def test_a_killed_workers_jobs_are_done_soon_after_a_new_worker_starts(
    tmp_path: Path, fake: FakeOpenAI
) -> None:
    data_dir, logs, port = tmp_path / "data", tmp_path / "logs", free_port()
    settings = openai_settings(fake)
    env = service_env(data_dir, port, CE_WORKER__IN_PROCESS="false", **settings)
    with launch("serve", env, logs, "serve") as server:
        with client(port) as anonymous:
            wait_ready(server, anonymous)
        with client(port, api_key(data_dir)) as http:
            ids = write_facts(http, [f"Deploy rule {n}." for n in range(4)])
            fake.hang()  # the worker claims the jobs and waits on the provider
            with launch(
                "worker", service_env(data_dir, None, **settings), logs, "worker-1"
            ) as first:
                wait_until(
                    "jobs held by the first worker",
                    lambda: all(embed_jobs(http, m)[0]["state"] == "running" for m in ids),
                    30,
                    first,
                )
                first.popen.send_signal(signal.SIGKILL)
                first.popen.wait()
            fake.recover()
            with launch(
                "worker", service_env(data_dir, None, **settings), logs, "worker-2"
            ) as second:
                seconds = wait_all_embedded(http, ids, 15, second)
                assert "worker.reclaimed" in second.out()
            print(f"\nkilled worker: its jobs done {seconds:.2f} s after a new worker started")
            for memory_id in ids:
                assert [job["state"] for job in embed_jobs(http, memory_id)] == ["done"]
        assert server.terminate() == 0, server.report()


def test_writes_and_builds_go_on_while_the_provider_hangs_refuses_and_returns(
    tmp_path: Path, fake: FakeOpenAI
) -> None:
    data_dir, logs, port = tmp_path / "data", tmp_path / "logs", free_port()
    fake.hang()
    # The provider's own timeout is far beyond any wait of this test: a start or a build that
    # waited for the provider would fail wait_ready (60 s) or the client (10 s). Only that is
    # asserted of their times: a machine loaded by other work (CI may run beside it) starts the
    # service in 5 to 30 s, and the deadline shows in each build's reason.
    settings = openai_settings(fake, CE_EMBEDDINGS__TIMEOUT_SECONDS=str(PROVIDER_TIMEOUT))
    with launch("serve", service_env(data_dir, port, **settings), logs, "s") as server:
        with client(port) as anonymous:
            seconds_to_ready = wait_ready(server, anonymous)
        ids, slowest = [], 0.0
        with client(port, api_key(data_dir)) as http:
            for phase in ("hangs", "refuses", "hangs again"):
                with refused(fake) if phase == "refuses" else contextlib.nullcontext():
                    for n in range(2):
                        ids.append(write_fact(http, f"Written while it {phase} ({n}).")["id"])
                        seconds, body = timed_build(http)
                        assert body["input_embedding"]["embedded"] is False
                        assert any(
                            why in body["input_embedding"]["reason"]
                            for why in (f"no answer within {DEADLINE} s", "paused", "failed")
                        ), body["input_embedding"]
                        slowest = max(slowest, seconds)
                    time.sleep(1.0)
            fake.recover()
            seconds_to_embed = wait_all_embedded(http, ids, 20, server)
            for memory_id in ids:
                assert [job["state"] for job in embed_jobs(http, memory_id)] == ["done"]
            _, body = timed_build(http)
            assert body["input_embedding"] == {"embedded": True, "reason": None, "rescored": False}
        print(
            f"\nprovider outage: ready after {seconds_to_ready:.2f} s; slowest build "
            f"{slowest:.3f} s (deadline {DEADLINE} s); all {len(ids)} memories embedded "
            f"{seconds_to_embed:.2f} s after it returned"
        )
        assert slowest < PROVIDER_TIMEOUT
        assert server.terminate() == 0, server.report()


def postmaster_pid(data_dir: Path) -> int:
    return int((data_dir / "pg" / "postmaster.pid").read_text().splitlines()[0])


def test_the_embedded_database_is_started_again_when_it_dies(tmp_path: Path) -> None:
    data_dir, logs, port = tmp_path / "data", tmp_path / "logs", free_port()
    with launch("serve", service_env(data_dir, port), logs, "serve") as server:
        with client(port) as anonymous:
            wait_ready(server, anonymous)
        with client(port, api_key(data_dir)) as http:
            write_fact(http, "Written before the database died.")
            os.kill(postmaster_pid(data_dir), signal.SIGKILL)
            killed_at, statuses = time.monotonic(), []
            time.sleep(0.2)  # its backends notice and exit
            while time.monotonic() - killed_at < 10:
                response = http.post(
                    "/agents/newton/memories", json={"kind": "fact", "content": "Retried."}
                )
                statuses.append(response.status_code)
                if response.status_code == 201:
                    break
                assert response.status_code == 503, response.text
                assert response.headers["content-type"] == "application/problem+json"
                assert int(response.headers["retry-after"]) > 0
                time.sleep(0.2)
            back = time.monotonic() - killed_at
            print(f"\npostmaster killed: {statuses.count(503)} answers 503, 201 after {back:.2f} s")
            assert 503 in statuses, statuses
            assert statuses[-1] == 201, statuses
            assert "embedded_postgres.restarted" in server.out()
            assert http.get("/readyz").status_code == 200
            after = write_fact(http, "Written after the database came back.")
            wait_all_embedded(http, [after["id"]], 30, server)  # the worker came through
        assert server.terminate() == 0, server.report()
    assert_postgres_stopped(data_dir)


def test_a_clean_stop_after_a_killed_service_stops_the_embedded_database(
    tmp_path: Path,
) -> None:
    data_dir, logs = tmp_path / "data", tmp_path / "logs"
    port = free_port()
    with launch("serve", service_env(data_dir, port), logs, "killed") as killed:
        with client(port) as anonymous:
            wait_ready(killed, anonymous)
        killed.popen.send_signal(signal.SIGKILL)
        killed.popen.wait()
    assert postgres_of(data_dir), "the kill took the database down with it"

    port = free_port()
    with launch("serve", service_env(data_dir, port), logs, "next") as server:
        with client(port) as anonymous:
            wait_ready(server, anonymous)
        # A worker joins the same server and is killed too, while the service runs on.
        with launch("worker", service_env(data_dir), logs, "worker") as worker:
            wait_until("worker running", lambda: "Worker running" in worker.err(), 60, worker)
            worker.popen.send_signal(signal.SIGKILL)
            worker.popen.wait()
        assert server.terminate() == 0, server.report()
    assert_postgres_stopped(data_dir)


def test_another_embedding_model_of_the_same_dimension_is_not_mixed_in(
    tmp_path: Path, fake: FakeOpenAI
) -> None:
    data_dir, logs, port = tmp_path / "data", tmp_path / "logs", free_port()
    with launch("serve", service_env(data_dir, port, **openai_settings(fake)), logs, "1") as first:
        with client(port) as anonymous:
            wait_ready(first, anonymous)
        with client(port, api_key(data_dir)) as http:
            written = write_fact(http, "Embedded by text-embedding-3-small at 384 dimensions.")
            wait_all_embedded(http, [written["id"]], 30, first)
        assert first.terminate() == 0, first.report()

    # The local model makes 384 dimensions too: the start is refused, naming the way out.
    with launch("serve", service_env(data_dir, port), logs, "2") as refused_start:
        code = refused_start.popen.wait(60)
        assert code != 0
        assert "python -m app reembed" in refused_start.err()
    assert_postgres_stopped(data_dir)

    env = service_env(data_dir, port, CE_EMBEDDINGS__REEMBED_ON_MODEL_CHANGE="true")
    with launch("serve", env, logs, "3") as server:
        with client(port) as anonymous:
            wait_ready(server, anonymous)
        with client(port, api_key(data_dir)) as http:

            def local_vector() -> bool:
                model = memory(http, written["id"])["provenance"]["embedding_model"]
                return bool(model == "all-MiniLM-L6-v2")

            wait_until("re-embedded by the local model", local_vector, 30, server)
        assert server.terminate() == 0, server.report()
