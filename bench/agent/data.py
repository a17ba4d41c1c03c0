"""Typed-memory benchmark files: agents, their memories and patches, and curated questions."""

import json
from collections import Counter
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

# Patch fields that hold plain text, never the key of another memory.
_TEXT_FIELDS = frozenset({"action", "notes", "outcome"})


class _Loose(BaseModel):
    """Unknown fields are kept out of the way, not refused: files may carry notes of their own."""

    model_config = ConfigDict(extra="ignore", frozen=True)


class MemorySpec(_Loose):
    """One memory: its key in the file, the exact POST body, and the patches applied after."""

    key: str = Field(min_length=1)
    body: dict[str, JsonValue]
    patches: list[dict[str, JsonValue]] = Field(default_factory=list)

    @property
    def kind(self) -> str:
        return str(self.body.get("kind", ""))


class QuestionSpec(_Loose):
    """An input, the memories a careful curator would load for it, and those that must stay out."""

    id: str
    input: str = Field(min_length=1)
    now: str | None = None
    frame: str | None = None
    expected: list[str] = Field(default_factory=list)
    forbidden: list[str] = Field(default_factory=list)
    category: str = "uncategorised"


class AgentSpec(_Loose):
    agent_id: str
    model: str | None = None
    identity: dict[str, JsonValue]
    working_memory: dict[str, JsonValue] | None = None
    memories: list[MemorySpec]
    questions: list[QuestionSpec] = Field(default_factory=list)

    @model_validator(mode="after")
    def _keys_resolve(self) -> "AgentSpec":
        counts = Counter(memory.key for memory in self.memories)
        repeated = sorted(key for key, n in counts.items() if n > 1)
        if repeated:
            raise ValueError(f"agent {self.agent_id}: memory keys used twice: {repeated}")
        for question in self.questions:
            unknown = sorted(set(question.expected + question.forbidden) - counts.keys())
            if unknown:
                raise ValueError(
                    f"agent {self.agent_id}, question {question.id}: unknown keys {unknown}"
                )
        return self

    def kinds(self) -> dict[str, str]:
        """The kind of each memory, by key."""
        return {memory.key: memory.kind for memory in self.memories}

    def censor_patterns(self) -> dict[str, str]:
        """The trigger pattern of each censor, by key (what its line in a context names)."""
        return {
            memory.key: str(memory.body.get("trigger_pattern", ""))
            for memory in self.memories
            if memory.kind == "censor"
        }


class AgentBenchFile(_Loose):
    name: str
    version: int = 1
    agents: list[AgentSpec] = Field(min_length=1)


def load(path: Path) -> AgentBenchFile:
    """Read and check a benchmark file: unique keys, and questions that name known keys."""
    return AgentBenchFile.model_validate(json.loads(path.read_text()))


def resolve_patch(patch: dict[str, JsonValue], ids: dict[str, str]) -> dict[str, JsonValue]:
    """The patch with the keys of other memories it names replaced by their ids."""
    return {
        name: ids[value]
        if name not in _TEXT_FIELDS and isinstance(value, str) and value in ids
        else value
        for name, value in patch.items()
    }


def counts(data: AgentBenchFile) -> dict[str, JsonValue]:
    """What the file holds: agents, memories by kind, patches, questions by category."""
    kinds = Counter(m.kind for a in data.agents for m in a.memories)
    categories = Counter(q.category for a in data.agents for q in a.questions)
    return {
        "agents": len(data.agents),
        "memories": sum(kinds.values()),
        "memories_by_kind": dict(sorted(kinds.items())),
        "patches": sum(len(m.patches) for a in data.agents for m in a.memories),
        "questions": sum(categories.values()),
        "categories": dict(sorted(categories.items())),
    }
