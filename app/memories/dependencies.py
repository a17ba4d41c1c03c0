"""Request dependencies of the memory routes."""

import json
from typing import Annotated

from fastapi import Depends, Header, Query
from pydantic import JsonValue

from app.core.errors import InvalidInput
from app.core.text import reject_nul_in_json
from app.deps import ProvidersDep, SettingsDep
from app.memories.service import MemoryContext


def _memory_context(providers: ProvidersDep, settings: SettingsDep) -> MemoryContext:
    return MemoryContext(providers=providers, settings=settings)


def _metadata_filter(
    metadata: Annotated[
        str | None,
        Query(
            description='JSON object the memory metadata must contain, e.g. {"topic": "redis"}.',
            examples=['{"topic": "redis"}'],
        ),
    ] = None,
) -> dict[str, JsonValue] | None:
    if metadata is None:
        return None
    try:
        parsed = json.loads(metadata)
    except json.JSONDecodeError as exc:
        raise InvalidInput(
            f"metadata is not valid JSON: {exc.msg}", loc=["query", "metadata"]
        ) from exc
    if not isinstance(parsed, dict):
        raise InvalidInput("metadata must be a JSON object", loc=["query", "metadata"])
    try:
        reject_nul_in_json(parsed)
    except ValueError as exc:
        raise InvalidInput(str(exc), loc=["query", "metadata"]) from exc
    return parsed


IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        min_length=1,
        max_length=255,
        description="Retrying a POST with the same key returns the first response; "
        "nothing is stored twice.",
    ),
]
MemoryCtx = Annotated[MemoryContext, Depends(_memory_context)]
MetadataFilter = Annotated[dict[str, JsonValue] | None, Depends(_metadata_filter)]
