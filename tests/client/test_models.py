"""The client's models are generated from openapi/openapi.json: they never drift from it."""

import json
import subprocess
import sys
from pathlib import Path

import context_engine_client
import pytest
from context_engine_client.generate import generate, model_of, type_of

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


def test_the_schema_subset_maps_to_python_types() -> None:
    assert type_of({"type": "string", "format": "date-time"}) == "datetime"
    assert type_of({"anyOf": [{"type": "integer"}, {"type": "null"}]}) == "int | None"
    assert type_of({"type": "array", "items": {"$ref": "#/components/schemas/Fact"}}) == (
        "list[Fact]"
    )
    assert type_of({"type": "object", "additionalProperties": {"type": "number"}}) == (
        "dict[str, float]"
    )
    assert type_of({"enum": ["warn", "block"]}) == 'Literal["warn", "block"]'
    one_of = {
        "oneOf": [{"$ref": "#/components/schemas/A"}, {"$ref": "#/components/schemas/B"}],
        "discriminator": {"propertyName": "kind"},
    }
    assert type_of(one_of) == 'Annotated[A | B, Field(discriminator="kind")]'
    assert type_of({}) == "Json"


def test_names_the_models_cannot_carry_are_refused() -> None:
    """A property named like a BaseModel attribute, or a schema named like an import, would
    change what models.py means: the generator stops instead."""
    with pytest.raises(ValueError, match="alias"):
        model_of("Thing", {"type": "object", "properties": {"json": {"type": "string"}}})
    with pytest.raises(ValueError, match="shadow"):
        model_of("Field", {"type": "object", "properties": {}})
