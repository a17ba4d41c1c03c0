"""The client's models are generated from openapi/openapi.json: they never drift from it."""

import json
import subprocess
import sys
from pathlib import Path

import context_engine_client
from context_engine_client.generate import generate

REPO = Path(__file__).resolve().parents[2]
MODELS = REPO / "clients" / "python" / "context_engine_client" / "models.py"


def test_the_models_are_those_of_the_openapi_document() -> None:
    """Fails when openapi/openapi.json changed and `make client-models` was not run."""
    source = generate(json.loads((REPO / "openapi" / "openapi.json").read_text()))
    formatted = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--stdin-filename", str(MODELS), "-"],
        input=source,
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    ).stdout
    assert formatted == MODELS.read_text(), "run `make client-models`"
    assert Path(context_engine_client.__file__).parent == MODELS.parent
