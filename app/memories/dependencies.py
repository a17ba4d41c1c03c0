"""Request dependencies of the memory routes."""

import json
from typing import Annotated

from fastapi import Depends, Query, Request
from pydantic import JsonValue, TypeAdapter

from app.core.errors import InvalidInput
from app.core.fields import JsonObject
from app.core.openapi import json_content
from app.deps import ProvidersDep, SettingsDep
from app.memories.peers import MemoryPeers
from app.memories.service import MemoryContext


async def _memory_context(providers: ProvidersDep, settings: SettingsDep) -> MemoryContext:
    return MemoryContext(providers=providers, settings=settings)


_JSON_OBJECT: TypeAdapter[dict[str, JsonValue]] = TypeAdapter(JsonObject)


def _no_constants(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


async def _metadata_filter(
    metadata: Annotated[
        str | None,
        Query(
            description='JSON object the memory metadata must contain, e.g. {"topic": "redis"}.',
            json_schema_extra=json_content(_JSON_OBJECT, example={"topic": "redis"}),
        ),
    ] = None,
) -> dict[str, JsonValue] | None:
    if metadata is None:
        return None
    loc = ["query", "metadata"]
    try:
        parsed = json.loads(metadata, parse_constant=_no_constants)
        if not isinstance(parsed, dict):
            raise InvalidInput("metadata must be a JSON object", loc=loc)
        return _JSON_OBJECT.validate_python(parsed)
    except (ValueError, RecursionError) as exc:
        raise InvalidInput(
            f"metadata is not a JSON object this service can match: {exc}", loc=loc
        ) from exc


MemoryCtx = Annotated[MemoryContext, Depends(_memory_context)]
MetadataFilter = Annotated[dict[str, JsonValue] | None, Depends(_metadata_filter)]


async def _peers(request: Request) -> MemoryPeers:
    peers: MemoryPeers = request.app.state.memory_peers
    return peers


Peers = Annotated[MemoryPeers, Depends(_peers)]
