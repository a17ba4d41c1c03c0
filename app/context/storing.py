"""The store step: the build's document, encoded once, kept as it was returned.

The response is serialized once, from plain data by orjson; those bytes are the stored build
(`GET /context/{id}` sends them back as they are) and, with the storing's own time spliced into
`timings_ms`, the answer.
"""

import json
import uuid
from collections.abc import Mapping

import numpy as np
import orjson
from sqlalchemy.ext.asyncio import AsyncSession

from app.context.models import ContextBuild
from app.context.repository import ContextRepository
from app.context.schemas import ContextBuildRequest
from app.context.text.manifest import Built
from app.tenants.models import Tenant

# The key of the stages' timings in a build's JSON: a top-level field after every field that
# holds free text, so its last occurrence is the field itself (inside a string it is escaped).
_TIMINGS_KEY = '"timings_ms":'


async def store(
    session: AsyncSession,
    tenant: Tenant,
    request: ContextBuildRequest,
    built: Built,
    document: str,
    relevance: float | None,
) -> None:
    """Keep the build: `GET /context/{id}` returns it, refresh and feedback read it."""
    await ContextRepository(session).add_build(
        ContextBuild(
            id=built.build_id,
            tenant_id=tenant.id,
            agent_id=built.agent_id,
            parent_id=built.parent_id,
            input=request.input,
            frame=built.choice.frame.name,
            budget=built.plan.total,
            tokens_used=built.assembly.tokens,
            request=request.model_dump(mode="json"),
            response=document,
            item_ids=built.item_ids(),
            centroid=centroid(built),
            relevance=relevance,
            created_at=built.created_at,
        )
    )


def encode(document: Mapping[str, object]) -> str:
    """A manifest's JSON as pydantic would write it: UTC times end in `Z`, numpy numbers are
    numbers, ids are strings (asyncpg's own UUIDs too)."""
    options = orjson.OPT_UTC_Z | orjson.OPT_SERIALIZE_NUMPY
    return orjson.dumps(document, default=_id, option=options).decode()


def _id(value: object) -> str:
    if isinstance(value, uuid.UUID):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def with_timings(document: str, timings_ms: Mapping[str, float]) -> str:
    """The document with its `timings_ms` replaced (a flat object of numbers)."""
    start = document.rindex(_TIMINGS_KEY) + len(_TIMINGS_KEY)
    end = document.index("}", start) + 1
    return document[:start] + json.dumps(timings_ms, separators=(",", ":")) + document[end:]


def centroid(built: Built) -> list[float] | None:
    """What the context was built for, as a direction (refresh measures drift against it): the
    input's vector; without one, the mean of the memories in the context. The memories alone
    are a noisy measure: the very input that built a context was 0.32 from their mean."""
    if built.embedding.vector is not None:
        return [float(x) for x in built.embedding.vector]
    included = [i.scored.candidate.embedding for i in built.included()]
    parts = [v for v in included if v is not None]
    if not parts:
        return None
    mean = np.mean(np.stack(parts), axis=0)
    norm = float(np.linalg.norm(mean))
    return (mean / norm).tolist() if norm > 0 else None
