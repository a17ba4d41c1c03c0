"""The tools an LLM can call, by name: the one place a new tool is added.

A tool is a `Tool`: its name, what it does (for the model), its arguments as a pydantic model
(the definition's JSON Schema is generated from it) and an async handler that takes the call and
the validated arguments and returns a `ToolOutput`. `define` makes one; add it to `TOOLS`.
What a result shows is counted as referenced by the entry of its kind in `REFERENCE_COUNTERS`.
"""

import copy
import functools
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from pydantic import BaseModel, JsonValue, ValidationError

from app.context.repository import ContextRepository
from app.core.errors import InvalidInput
from app.tools import effort_tools, expand_memory, search_memory
from app.tools.types import ReferenceKind, ToolCall, ToolOutput

Arguments = TypeVar("Arguments", bound=BaseModel)


@dataclass(frozen=True)
class Tool:
    """A tool: `run` validates the model's arguments (422 naming the field) and runs it."""

    name: str
    description: str
    arguments: type[BaseModel]
    run: Callable[[ToolCall, Mapping[str, JsonValue]], Awaitable[ToolOutput]]

    def parameters(self) -> dict[str, JsonValue]:
        """The arguments' JSON Schema as OpenAI's function calling takes it (a copy)."""
        return copy.deepcopy(openai_schema(self.arguments))


def define(
    name: str,
    description: str,
    arguments: type[Arguments],
    handler: Callable[[ToolCall, Arguments], Awaitable[ToolOutput]],
) -> Tool:
    """A tool whose handler gets its arguments validated by `arguments`."""

    async def run(call: ToolCall, raw: Mapping[str, JsonValue]) -> ToolOutput:
        return await handler(call, validate(arguments, raw))

    return Tool(name, description, arguments, run)


def validate(arguments: type[Arguments], raw: Mapping[str, JsonValue]) -> Arguments:
    """The model's arguments, or 422 naming the first field at fault (under body.arguments)."""
    try:
        return arguments.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = list(first["loc"])
        name = ".".join(str(part) for part in where) or "arguments"
        detail = f"arguments.{name}: {first['msg']}"
        raise InvalidInput(detail, loc=["body", "arguments", *where]) from exc


@functools.cache
def openai_schema(arguments: type[BaseModel]) -> dict[str, JsonValue]:
    """The model's JSON Schema without titles, an optional field's `null` branch folded away
    (leaving it out says the same), as a function's `parameters`."""
    schema = arguments.model_json_schema()
    required = set(schema.get("required", []))
    properties: dict[str, JsonValue] = {}
    for name, field in schema.get("properties", {}).items():
        branches = field.get("anyOf")
        if name not in required and isinstance(branches, list):
            kept = [b for b in branches if b != {"type": "null"}]
            field = {k: v for k, v in field.items() if k != "anyOf"}
            field |= kept[0] if len(kept) == 1 else {"anyOf": kept}
            if field.get("default", 0) is None:
                del field["default"]
        properties[name] = _untitled(field)
    result: dict[str, JsonValue] = {"type": "object", "properties": properties}
    if required:
        result["required"] = [name for name in properties if name in required]
    result["additionalProperties"] = False
    if "$defs" in schema:  # nested models and enums, by reference
        result["$defs"] = _untitled(schema["$defs"], names=True)
    return result


def _untitled(schema: JsonValue, *, names: bool = False) -> JsonValue:
    """The schema without pydantic's titles (`names`: a mapping of names to schemas, such as
    `properties`, whose keys are never titles)."""
    if isinstance(schema, dict):
        return {
            k: _untitled(v, names=k in ("properties", "$defs") and not names)
            for k, v in schema.items()
            if names or k != "title"
        }
    if isinstance(schema, list):
        return [_untitled(v) for v in schema]
    return schema


TOOLS: tuple[Tool, ...] = (
    define(
        "search_memory",
        search_memory.DESCRIPTION,
        search_memory.SearchMemoryArguments,
        search_memory.search_memory,
    ),
    define(
        "expand_memory",
        expand_memory.DESCRIPTION,
        expand_memory.ExpandMemoryArguments,
        expand_memory.expand_memory,
    ),
    define(
        "expand_effort",
        effort_tools.EXPAND_DESCRIPTION,
        effort_tools.ExpandEffortArguments,
        effort_tools.expand_effort,
    ),
    define(
        "effort_status",
        effort_tools.STATUS_DESCRIPTION,
        effort_tools.EffortStatusArguments,
        effort_tools.effort_status,
    ),
)


async def _count_memory_references(call: ToolCall, memory_ids: Sequence[uuid.UUID]) -> None:
    await ContextRepository(call.session).record_references(memory_ids)


# How a result's references of each kind are counted (a memory's as feedback counts them: its
# usage in ranking; an effort's at its session's turn, keeping it in working memory); a kind
# with no entry is not counted.
REFERENCE_COUNTERS: Mapping[
    ReferenceKind, Callable[[ToolCall, Sequence[uuid.UUID]], Awaitable[None]]
] = {"memory": _count_memory_references, "effort": effort_tools.count_references}


def find(name: str) -> Tool | None:
    """The tool of that name, or None."""
    return next((tool for tool in TOOLS if tool.name == name), None)
