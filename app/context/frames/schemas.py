"""Request and response bodies of an agent's frames."""

from typing import Annotated, Literal

from fastapi import Path
from pydantic import BaseModel, ConfigDict, Field

from app.core.fields import Label, Line, NotBlankText, RequestBody, WholeNumber

FrameNameParam = Annotated[
    str,
    Path(
        pattern=r"^[a-z][a-z0-9_-]{0,63}$",
        description="Frame name, e.g. `incident`.",
        examples=["incident"],
    ),
]
Weight = Annotated[float, Field(ge=0.0, le=1.0)]
KindName = Literal["decision", "fact", "procedure", "episode"]


class FrameDefinition(RequestBody):
    """An agent's own frame, or its changes to a built-in one; omitted fields are inherited."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "description": "Production incident: restore service, then find the cause.",
                    "questions": ["What changed last?", "Who is affected?"],
                    "priorities": {"procedure": 1.0, "episode": 0.9, "fact": 0.6, "decision": 0.4},
                    "default_budget": 6000,
                    "examples": ["The API is down", "Latency spiked after the deploy"],
                    "cues": ["outage", "incident", "down"],
                }
            ]
        },
    )

    description: Annotated[NotBlankText, Field(max_length=2000)] | None = None
    questions: list[Line] | None = Field(default=None, max_length=20)
    priorities: dict[KindName, Weight] | None = None
    default_budget: Annotated[int, Field(ge=1, le=1_000_000), WholeNumber] | None = None
    examples: list[Line] | None = Field(default=None, max_length=50)
    cues: list[Label] | None = Field(default=None, max_length=50)
    recency: Weight | None = Field(
        default=None, description="How much newer memories matter (scales the recency weight)."
    )


class FrameView(BaseModel):
    """A frame as the agent's contexts use it."""

    name: str
    description: str
    questions: list[str]
    priorities: dict[str, float]
    default_budget: int
    examples: list[str]
    cues: list[str]
    recency: float
    builtin: bool
    customized: bool
