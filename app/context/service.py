"""Context builds as the API offers them: build one (the steps are in `pipeline.py`), read one."""

import uuid

from sqlalchemy.ext.asyncio import AsyncSession

from app.context import pipeline
from app.context.engine import ContextEngine
from app.context.repository import ContextRepository
from app.context.schemas import ContextBuildRequest, ContextBuildResponse
from app.core.errors import NotFound
from app.tenants.models import Tenant


async def build_context(
    session: AsyncSession, engine: ContextEngine, tenant: Tenant, request: ContextBuildRequest
) -> ContextBuildResponse:
    """Build the context for one input and store its manifest."""
    return (await pipeline.build(session, engine, tenant, request)).response


async def read_build(
    session: AsyncSession, tenant: Tenant, context_id: uuid.UUID
) -> ContextBuildResponse:
    """A stored build, as it was returned."""
    build = await ContextRepository(session).get_build(tenant.id, context_id)
    if build is None:
        raise NotFound(f"Context {context_id} does not exist.")
    return ContextBuildResponse.model_validate_json(build.response)
