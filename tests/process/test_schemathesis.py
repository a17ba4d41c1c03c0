"""The running service does what its OpenAPI document says: Schemathesis, every check and phase.

Schemathesis generates requests from /openapi.json (valid and invalid ones, and sequences that
follow the links between operations) and checks each answer: its status is documented, its
body and headers fit the schema, invalid input is refused and valid input accepted, 405s name
the allowed methods, a deleted resource is gone, a route behind a key refuses a request
without one.
"""

import subprocess
import sys
from pathlib import Path

import httpx

from tests.process.launcher import client as http_client
from tests.process.launcher import free_port, launch, service_env, wait_ready

CONFIG = Path(__file__).resolve().parent / "schemathesis.toml"
SEED = 20261123
# Fuzzing and stateful sequences repeat until this budget is spent; start and stop take ~20 s.
MAX_SECONDS = 120
DEADLINE = MAX_SECONDS + 120  # for the whole Schemathesis process, shrinking included
SETTINGS = {
    # No background worker: the API's answers do not wait for embeddings, and thousands of
    # generated memories would keep both cores busy embedding them.
    "CE_WORKER__IN_PROCESS": "false",
    # Smaller bodies and batches keep the generated data (and so the database) small; both
    # limits are in the document the service serves, so Schemathesis keeps to them.
    "CE_API__MAX_BODY_BYTES": "65536",
    "CE_API__BATCH_MAX_ITEMS": "10",
}


def test_service_matches_its_openapi_document(tmp_path: Path) -> None:
    data_dir, port = tmp_path / "data", free_port()
    with launch("serve", service_env(data_dir, port, **SETTINGS), tmp_path, "serve") as server:
        with http_client(port) as anonymous:
            wait_ready(server, anonymous)
            assert anonymous.get("/openapi.json").status_code == httpx.codes.OK
        key = (data_dir / "api-key").read_text().strip()
        command = [
            str(Path(sys.executable).with_name("st")),
            "--config-file",
            str(CONFIG),
            "--no-color",
            "run",
            f"http://127.0.0.1:{port}/openapi.json",
            "--header",
            f"Authorization: Bearer {key}",
            "--checks",
            "all",
            "--phases",
            "examples,coverage,fuzzing,stateful",
            "--seed",
            str(SEED),
            "--max-time",
            str(MAX_SECONDS),
            "--generation-database",
            "none",
        ]
        result = subprocess.run(
            command,
            cwd=tmp_path,
            env=service_env(tmp_path / "schemathesis"),
            capture_output=True,
            text=True,
            timeout=DEADLINE,
            check=False,
        )
        server.check_alive()
    report = result.stdout + result.stderr
    print(report[-3000:])
    assert result.returncode == 0, f"{report}\n{server.report()}"
