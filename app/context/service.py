"""Context builds as the API offers them: build one (the steps are in `pipeline.py`), read one,
list an agent's latest."""

import uuid

from pydantic import JsonValue
from sqlalchemy.ext.asyncio import AsyncSession

from app.agents.service import get_agent
from app.context import pipeline
from app.context.engine import ContextEngine
from app.context.repository import ContextRepository
from app.context.schemas import ContextBuildList, ContextBuildRequest, ContextBuildSummary
from app.core.cursor import decode_id_position, encode_position
from app.core.errors import NotFound
from app.tenants.models import Tenant


async def build_context(
    session: AsyncSession, engine: ContextEngine, tenant: Tenant, request: ContextBuildRequest
) -> str:
    """Build the context for one input and store its manifest; the response's JSON."""
    return (await pipeline.build(session, engine, tenant, request)).document


async def read_build(session: AsyncSession, tenant: Tenant, context_id: uuid.UUID) -> str:
    """A stored build's JSON, as it was returned (without the storing's own time)."""
    build = await ContextRepository(session).get_build(tenant.id, context_id)
    if build is None:
        raise NotFound(f"Context {context_id} does not exist.")
    return build.response


async def list_builds(
    session: AsyncSession, tenant: Tenant, agent_name: str, limit: int, cursor: str | None = None
) -> ContextBuildList:
    """An agent's latest builds, newest first; a cursor keeps to those made before it."""
    agent = await get_agent(session, tenant, agent_name)
    before = decode_id_position(cursor) if cursor else None
    found = await ContextRepository(session).recent_builds(tenant.id, agent.id, limit + 1, before)
    builds = found[:limit]
    more = len(found) > limit
    return ContextBuildList(
        next_cursor=encode_position(builds[-1].created_at, str(builds[-1].id)) if more else None,
        items=[
            ContextBuildSummary(
                context_id=build.id,
                parent_id=build.parent_id,
                input=build.input,
                frame=build.frame,
                budget=build.budget,
                used=build.tokens_used,
                relevance=build.relevance,
                precision=_precision(build.feedback),
                created_at=build.created_at,
            )
            for build in builds
        ],
    )


def _precision(feedback: dict[str, JsonValue] | None) -> float | None:
    precision = (feedback or {}).get("precision")
    return float(precision) if isinstance(precision, int | float) else None
