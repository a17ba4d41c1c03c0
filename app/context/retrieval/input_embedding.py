"""The input's vectors for a build or a search: the search model's, and the rescoring model's
beside it where one is set (CE_EMBEDDINGS__RESCORE_MODEL)."""

import asyncio

import structlog
from sqlalchemy.ext.asyncio import AsyncSession

from app.context.engine import ContextEngine
from app.context.types import InputEmbedding, Vector
from app.providers.errors import ProviderError
from app.providers.query_vectors import QueryVectors
from app.sessions.input_vectors import InputVectorRepository
from app.tenants.models import Tenant

log = structlog.get_logger(__name__)


async def embed_input(
    engine: ContextEngine, tenant: Tenant, text: str, *, rescore: bool = True
) -> InputEmbedding:
    """The input's embedding (kept when the input was appended or built before), and, unless
    `rescore` is False, the rescoring model's beside it on another thread. A build does not wait
    for either past its deadline, nor calls a provider known to be down: words alone still find
    memories, and the search model's similarity still ranks them."""
    deadline = engine.settings.embedding_deadline_seconds
    rescoring = engine.providers.rescore_queries if rescore else None
    second = (
        None
        if rescoring is None
        else asyncio.create_task(_rescore_vector(rescoring, tenant, text, deadline))
    )
    try:
        vector = await engine.providers.queries.vector(tenant.id, text, deadline=deadline)
        return InputEmbedding(vector, rescore=None if second is None else await second)
    except ProviderError as exc:
        log.warning("context.embedding_unavailable", error=str(exc))
        return InputEmbedding(None, f"{exc}; memories were found by their words alone")
    finally:
        if second is not None:
            second.cancel()  # a no-op once done; else the build needs it no more


async def take_kept_vectors(
    session: AsyncSession, engine: ContextEngine, tenant: Tenant, text: str
) -> None:
    """The input's vectors that another API process kept when the input was appended
    (`app.sessions.input_vectors`), taken into this process's; one statement, only when this
    process holds the input's vectors from neither model."""
    missing = [m for m in engine.providers.input_models if not m.holds(tenant.id, text)]
    if not missing:
        return
    found = await InputVectorRepository(session).find(
        tenant.id, text, [model.model_name for model in missing]
    )
    for model in missing:
        if model.model_name in found:
            model.keep(tenant.id, text, found[model.model_name])


async def _rescore_vector(
    queries: QueryVectors, tenant: Tenant, text: str, deadline: float
) -> Vector | None:
    try:
        return await queries.vector(tenant.id, text, deadline=deadline)
    except ProviderError as exc:
        log.warning("context.rescore_embedding_unavailable", error=str(exc))
        return None
