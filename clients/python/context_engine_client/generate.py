"""Write `models.py` from the service's OpenAPI document: one pydantic model per schema.

    python -m context_engine_client.generate openapi/openapi.json > models.py

It reads the JSON Schema subset the document uses (objects, arrays, `anyOf`, `oneOf` with a
discriminator, `enum` and `const`, `$ref`) and keeps the types only: lengths, patterns and ranges
are the service's to check, so a request it rejects comes back as its 422 naming the field.
`make client-models` runs it and `ruff format` over its output.
"""

import json
import keyword
import re
import sys
import textwrap
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import cast

from pydantic import BaseModel

Schema = Mapping[str, object]

HEADER = '''"""The service's request and response bodies, generated from openapi/openapi.json.

Do not edit: `make client-models` writes this file again (a test fails when it drifts).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field
from pydantic import JsonValue as Json
'''

# The names HEADER's imports bind: a schema of one of these names would shadow it.
HEADER_NAMES = frozenset(
    {"annotations", "datetime", "Annotated", "Literal", "TypeAlias", "BaseModel", "ConfigDict"}
    | {"Field", "Json"}
)
SCALARS = {"integer": "int", "number": "float", "boolean": "bool", "null": "None"}
REF = "#/components/schemas/"
LINE = 100  # the house style's line length


def _ref_name(ref: str) -> str:
    if not ref.startswith(REF):
        raise ValueError(f"unsupported $ref {ref!r}")
    return ref.removeprefix(REF)


def _literal(values: Sequence[object]) -> str:
    return "Literal[" + ", ".join(json.dumps(v) for v in values) + "]"


def _union(parts: Sequence[str]) -> str:
    unique = list(dict.fromkeys(parts))
    if "None" in unique:  # `X | None` reads best with None last
        unique = [p for p in unique if p != "None"] + ["None"]
    return " | ".join(unique)


def type_of(schema: Schema) -> str:
    """The Python annotation of a schema."""
    if "$ref" in schema:
        return _ref_name(str(schema["$ref"]))
    if "const" in schema:
        return _literal([schema["const"]])
    if "enum" in schema:
        return _literal(cast(Sequence[object], schema["enum"]))
    if "oneOf" in schema:
        options = _union([type_of(s) for s in cast(Sequence[Schema], schema["oneOf"])])
        discriminator = cast(Schema | None, schema.get("discriminator"))
        if discriminator is None:
            return options
        return f'Annotated[{options}, Field(discriminator="{discriminator["propertyName"]}")]'
    if "anyOf" in schema:
        return _union([type_of(s) for s in cast(Sequence[Schema], schema["anyOf"])])
    kind = schema.get("type")
    if kind == "string":
        return "datetime" if schema.get("format") == "date-time" else "str"
    if isinstance(kind, str) and kind in SCALARS:
        return SCALARS[kind]
    if kind == "array":
        return f"list[{type_of(cast(Schema, schema.get('items', {})))}]"
    if kind == "object" and "properties" not in schema:
        values = schema.get("additionalProperties")
        value_type = type_of(cast(Schema, values)) if isinstance(values, Mapping) else "Json"
        return f"dict[str, {value_type}]"
    if kind is None or isinstance(kind, list):  # any JSON, or a list of JSON types
        return "Json"
    raise ValueError(f"unsupported schema {json.dumps(schema)[:200]}")


def _docstring(text: str, indent: str) -> list[str]:
    """A docstring of `text`, wrapped; quotes and backslashes escaped."""
    text = " ".join(text.split()).replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    if text.endswith('"'):
        text += " "
    if len(indent) + len(text) + 6 <= LINE:
        return [f'{indent}"""{text}"""']
    # Narrower than the line, so that a text too long for one line always wraps into two.
    lines = textwrap.wrap(text, LINE - len(indent) - 10, break_on_hyphens=False)
    return [f'{indent}"""{lines[0]}', *(f"{indent}{line}" for line in lines[1:]), f'{indent}"""']


def _default(value: object) -> str:
    if isinstance(value, list | dict):
        return f"Field(default_factory={type(value).__name__})" if not value else repr(value)
    return repr(value)


def _field(name: str, schema: Schema, required: bool) -> list[str]:
    clash = hasattr(BaseModel, name) or name.startswith("model_") or keyword.iskeyword(name)
    if clash or not name.isidentifier():
        raise ValueError(f"property {name!r} needs an alias, which this generator does not write")
    annotation = type_of(schema)
    if required:
        line = f"    {name}: {annotation}"
    elif "default" in schema:
        line = f"    {name}: {annotation} = {_default(schema['default'])}"
    else:
        optional = annotation if annotation.endswith("| None") else f"{annotation} | None"
        line = f"    {name}: {optional} = None"
    description = schema.get("description")
    return [line, *(_docstring(str(description), "    ") if description else [])]


def model_of(name: str, schema: Schema) -> list[str]:
    """The class (or, for a schema of any JSON, the alias) of one component schema."""
    if name in HEADER_NAMES or not name.isidentifier():
        raise ValueError(f"schema {name!r} would shadow a name of models.py's imports")
    properties = cast(Mapping[str, Schema] | None, schema.get("properties"))
    if properties is None:
        return [f"{name}: TypeAlias = {type_of(schema)}"]
    lines = [f"class {name}(BaseModel):"]
    description = schema.get("description")
    lines += _docstring(str(description or name), "    ")
    # Extra members are kept: a newer service's fields reach older clients, not errors.
    lines += ["", '    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)', ""]
    required = set(cast(Sequence[str], schema.get("required", [])))
    for prop, prop_schema in properties.items():
        lines += _field(prop, prop_schema, prop in required)
    return lines


def _route_name(operation_id: str, path: str, method: str) -> str:
    """The function name FastAPI's operation id starts with."""
    suffix = re.sub(r"\W", "_", path) + "_" + method
    return operation_id.removesuffix(suffix) if operation_id.endswith(suffix) else operation_id


def _member(schema: Schema, *keys: str) -> Schema | None:
    """The mapping at `keys` under `schema`, if there is one."""
    found: object = schema
    for key in keys:
        found = found.get(key) if isinstance(found, Mapping) else None
    return cast(Schema, found) if isinstance(found, Mapping) else None


def _operations(paths: Mapping[str, Mapping[str, Schema]]) -> Iterator[tuple[str, str, Schema]]:
    for path, methods in paths.items():
        for method, operation in methods.items():
            yield path, method, operation


def inline_bodies(paths: Mapping[str, Mapping[str, Schema]]) -> list[str]:
    """Aliases for request bodies given inline (one of several models), named by their route."""
    lines: list[str] = []
    for path, method, operation in _operations(paths):
        body = _member(operation, "requestBody", "content", "application/json", "schema")
        if body is None or "$ref" in body:
            continue
        route = _route_name(str(operation["operationId"]), path, method)
        alias = "".join(part.capitalize() for part in route.split("_")) + "Body"
        lines += ["", "", f"{alias}: TypeAlias = {type_of(body)}"]
    return lines


def idempotent_writes(paths: Mapping[str, Mapping[str, Schema]]) -> list[str]:
    """The writes that honour an Idempotency-Key: a retry of them stores nothing twice."""
    found = []
    for path, method, operation in _operations(paths):
        parameters = cast(Sequence[Schema], operation.get("parameters", []))
        if any(p.get("in") == "header" and p.get("name") == "Idempotency-Key" for p in parameters):
            found.append(f'    ("{method.upper()}", "{path}"),')
    return ["", "", "IDEMPOTENT_WRITES: tuple[tuple[str, str], ...] = (", *found, ")"]


def generate(document: Schema) -> str:
    """The source of models.py for an OpenAPI document."""
    components = cast(Mapping[str, Schema], cast(Schema, document["components"])["schemas"])
    paths = cast(Mapping[str, Mapping[str, Schema]], document["paths"])
    lines = HEADER.splitlines()
    aliases = [n for n, s in components.items() if "properties" not in s]
    # Classes first, the aliases of any JSON after them (annotations are resolved lazily).
    for name in [*(n for n in components if n not in aliases), *aliases]:
        lines += ["", "", *model_of(name, components[name])]
    lines += inline_bodies(paths)
    lines += idempotent_writes(paths)
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str]) -> int:
    """Print models.py for the OpenAPI document named on the command line."""
    if len(argv) != 1:
        print("usage: python -m context_engine_client.generate openapi.json", file=sys.stderr)
        return 2
    sys.stdout.write(generate(json.loads(Path(argv[0]).read_text(encoding="utf-8"))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
