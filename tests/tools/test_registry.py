"""The registry's definitions: a tool's arguments model becomes the JSON Schema OpenAI takes,
whatever the model holds (a field named `title`, nested models, enums). Pure."""

import enum

import pytest
from pydantic import BaseModel, Field

from app.core.errors import InvalidInput
from app.core.fields import RequestBody
from app.tools.registry import TOOLS, openai_schema, validate


class State(enum.StrEnum):
    OPEN = "open"
    CONCLUDED = "concluded"


class Window(BaseModel):
    turns: int = Field(ge=1, description="How many turns.")


class EffortArguments(RequestBody):
    title: str = Field(description="The effort's title.")
    state: State | None = None
    window: Window | None = None


def test_a_field_named_title_and_nested_models_survive() -> None:
    schema = openai_schema(EffortArguments)
    assert schema == {
        "type": "object",
        "properties": {
            "title": {"type": "string", "description": "The effort's title."},
            "state": {"$ref": "#/$defs/State"},
            "window": {"$ref": "#/$defs/Window"},
        },
        "required": ["title"],
        "additionalProperties": False,
        "$defs": {
            "State": {"enum": ["open", "concluded"], "type": "string"},
            "Window": {
                "type": "object",
                "properties": {
                    "turns": {"type": "integer", "minimum": 1, "description": "How many turns."}
                },
                "required": ["turns"],
            },
        },
    }


def test_arguments_at_fault_are_named_under_body_arguments() -> None:
    with pytest.raises(InvalidInput) as raised:
        validate(EffortArguments, {"title": "x", "window": {"turns": 0}})
    assert raised.value.extensions["errors"] == [
        {
            "loc": ["body", "arguments", "window", "turns"],
            "msg": "arguments.window.turns: Input should be greater than or equal to 1",
        }
    ]


def test_tool_names_are_unique_and_as_openai_allows() -> None:
    names = [tool.name for tool in TOOLS]
    assert len(set(names)) == len(names)
    assert all(name.replace("_", "").isalnum() and len(name) <= 64 for name in names)
