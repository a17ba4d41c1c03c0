"""openapi/openapi.json is the app's own document; `make openapi` refreshes it."""

import json
from pathlib import Path

from app.core.config import Settings
from app.main import create_app

EXPORTED = Path(__file__).resolve().parents[1] / "openapi" / "openapi.json"


def test_exported_openapi_matches_the_app(settings: Settings) -> None:
    current = create_app(settings).openapi()
    exported = json.loads(EXPORTED.read_text())
    assert exported == current, "openapi/openapi.json is stale: run `make openapi`"


def test_every_operation_is_described_with_examples(settings: Settings) -> None:
    schema = create_app(settings).openapi()
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            assert operation.get("description") or operation.get("summary"), (method, path)
    create = schema["paths"]["/agents/{agent_id}/memories"]["post"]
    examples = create["requestBody"]["content"]["application/json"]["examples"]
    assert set(examples) == {"decision", "fact", "procedure", "episode", "censor"}
    assert "bearer" in json.dumps(schema["components"]["securitySchemes"]).lower()
