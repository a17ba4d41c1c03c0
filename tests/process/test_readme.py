"""The README's first session, run as written (its shell blocks, in order, by bash) against a
fresh `serve`: it cannot drift from the service again."""

import re
import subprocess
from pathlib import Path

from tests.process.launcher import REPO, client, free_port, launch, service_env, wait_ready


def first_session() -> str:
    """The shell blocks of the README's "A first session", joined in order."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## A first session\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, flags=re.DOTALL)
    assert blocks, "the first session has no sh block"
    return "\n".join(blocks)


def test_the_first_session_runs_as_written(tmp_path: Path) -> None:
    port, data_dir = free_port(), tmp_path / "data"
    with launch("serve", service_env(data_dir, port), tmp_path / "logs", "serve") as server:
        with client(port) as anonymous:
            wait_ready(server, anonymous)
        # Where this test's server is; and every curl fails on an error status, with its body.
        script = (
            first_session()
            .replace("localhost:8000", f"127.0.0.1:{port}")
            .replace("cat .data/api-key", f"cat {data_dir / 'api-key'}")
            .replace("curl -s ", "curl -s --fail-with-body ")
        )
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert server.terminate() == 0
    said = done.stdout + done.stderr
    assert done.returncode == 0, said
    # The context (printed before its totals) holds the identity and the decision.
    built = re.search(
        r"## Identity\nNewton\. Analytical, cautious\.(.*?)\{'budget': 2000", said, re.S
    )
    assert built is not None, said
    assert "Chose Postgres + pgvector over ChromaDB" in built.group(1)
    assert "We need a cache in front of the API." in done.stdout  # the history
    assert '"referenced"' in done.stdout  # the feedback was taken
