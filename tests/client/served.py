"""The service as a real process (`python -m app serve` on a fresh data directory), for the sync
client and the example agent, which talk to it over real HTTP."""

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.process.launcher import Process, client, free_port, launch, service_env, wait_ready


@dataclass(frozen=True)
class Served:
    """A running service: its URL, its first API key, its process and data directory."""

    url: str
    key: str
    process: Process
    data_dir: Path


@contextlib.contextmanager
def serve(root: Path) -> Iterator[Served]:
    data_dir, port = root / "data", free_port()
    with launch("serve", service_env(data_dir, port), root / "logs", "serve") as process:
        with client(port) as anonymous:
            wait_ready(process, anonymous)
        key = (data_dir / "api-key").read_text().strip()
        yield Served(f"http://127.0.0.1:{port}", key, process, data_dir)
