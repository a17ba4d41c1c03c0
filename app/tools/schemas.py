"""Request and response bodies of the tools API: OpenAI's function-calling shapes."""

import uuid
from typing import Annotated, Literal

from fastapi import Path
from pydantic import BaseModel, Field, JsonValue

from app.core.fields import JsonObject, Label, NoNul, RequestBody, WholeNumber
from app.providers.tokenizer import TargetModel

ToolName = Annotated[
    str,
    Path(
        pattern=r"^[A-Za-z0-9_-]{1,64}$",
        description="The tool's name, as its definition and the model's tool call give it.",
        examples=["search_memory"],
    ),
]


class FunctionDefinition(BaseModel):
    """A function the model may call, as OpenAI's chat completions API takes it."""

    name: str
    description: str
    parameters: dict[str, JsonValue] = Field(description="JSON Schema of its arguments.")


class ToolDefinition(BaseModel):
    """One entry of a chat completions request's `tools`."""

    type: Literal["function"] = "function"
    function: FunctionDefinition


class ToolCallRequest(RequestBody):
    """One tool call of the model: its arguments as the model wrote them."""

    arguments: Annotated[str, Field(max_length=100_000), NoNul] | JsonObject = Field(
        default_factory=dict,
        description="The tool's arguments: a JSON object, or the JSON-encoded object as the "
        "model returns it in `tool_calls[].function.arguments`. Each tool's definition "
        "(GET /agents/{agent_id}/tools) says which it takes; a field at fault answers 422 "
        "naming it under `arguments`.",
    )
    tool_call_id: Label | None = Field(
        default=None,
        description="The model's `tool_calls[].id`: echoed, and the ready `message` answers it.",
    )
    max_tokens: Annotated[int, Field(ge=64, le=100_000), WholeNumber] | None = Field(
        default=None,
        description="Tokens of `content` at most (the target model's tokenizer); "
        "CE_TOOLS__MAX_TOKENS when left out.",
    )
    model: TargetModel | None = Field(
        default=None,
        description="Count tokens as this model does; the agent's model when left out.",
    )


class ToolReference(BaseModel):
    """Something the result shows: a memory, a session's message or an effort, by id."""

    kind: Literal["memory", "message", "effort"]
    id: uuid.UUID


class ToolMessage(BaseModel):
    """The result as the chat message that answers the tool call: append it as it is."""

    role: Literal["tool"] = "tool"
    tool_call_id: str
    content: str


class ToolResult(BaseModel):
    """A tool's result: the text to hand back to the model, its tokens and what it shows."""

    name: str
    tool_call_id: str | None
    content: str = Field(description="The text for the model, within `max_tokens`.")
    tokens: int = Field(description="Tokens of `content` in the target model's encoding.")
    max_tokens: int
    left_out: int = Field(description="Results not shown: they did not fit `max_tokens`.")
    cut: bool = Field(description="Whether the last result shown was shortened to fit.")
    references: list[ToolReference] = Field(
        description="What `content` shows, in order; each counts as a reference to it."
    )
    message: ToolMessage | None = Field(
        description="With a `tool_call_id`: the tool message to append to the conversation."
    )
