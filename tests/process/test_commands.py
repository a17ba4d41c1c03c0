"""The operator's commands beside a running `serve`: `reembed` refuses to drop vectors that
already come from the configured model, and shows the worker's progress when forced; a command
that joins the running embedded database says so."""

import re
from pathlib import Path

from tests.process.launcher import (
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


def test_reembed_refuses_the_same_model_and_shows_progress_when_forced(tmp_path: Path) -> None:
    port, data_dir = free_port(), tmp_path / "data"
    env = service_env(data_dir, port)
    with launch("serve", env, tmp_path / "logs", "serve") as server:
        with client(port) as anonymous:
            wait_ready(server, anonymous)
        with client(port, (data_dir / "api-key").read_text().strip()) as http:
            ids = [
                write_fact(http, text)["id"]
                for text in ("Staging runs in Frankfurt.", "Backups run at 02:00 UTC.")
            ]
            for memory_id in ids:
                wait_embedded(http, memory_id, server)
            before = {i: memory(http, i)["provenance"]["embedded_at"] for i in ids}

            same = cli(env, "reembed")
            assert same.returncode == 0, same.stderr
            assert "nothing to re-embed" in same.stdout
            assert "reembed --force" in same.stdout
            assert {i: memory(http, i)["provenance"]["embedded_at"] for i in ids} == before
            # It used the embedded PostgreSQL that `serve` runs.
            assert "embedded_postgres.joined" in same.stdout
            assert "embedded_postgres.started" not in same.stdout

            forced = cli(env, "reembed", "--force")
            assert forced.returncode == 0, forced.stderr
            assert "Queued 2 memories" in forced.stdout
            counts = re.findall(r"(\d+) of (\d+) memories embedded", forced.stdout)
            assert counts[0][1] == "2"
            assert counts[-1] == ("2", "2")
            assert "Done" in forced.stdout
            after = {i: memory(http, i)["provenance"]["embedded_at"] for i in ids}
            assert all(after[i] > before[i] for i in ids)
        assert server.terminate() == 0
