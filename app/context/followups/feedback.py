"""Expand and feedback: which memories the LLM looked at or used."""

import uuid

from sqlalchemy.ext.asyncio import AsyncSession

from app.context import metrics
from app.context.followups.references import referenced
from app.context.followups.schemas import (
    ContextExpandRequest,
    ContextFeedback,
    ContextFeedbackResponse,
)
from app.context.repository import ContextRepository
from app.core.context_config import EffortSettings
from app.core.errors import Conflict, NotFound
from app.core.time import utcnow
from app.efforts.tracking import refer_in_reply
from app.memories.schemas import MemoryRead
from app.memories.service import MemoryContext, read_memory
from app.tenants.models import Tenant


async def expand_memory(
    session: AsyncSession, ctx: MemoryContext, tenant: Tenant, request: ContextExpandRequest
) -> MemoryRead:
    """The full record of a memory, counted as a reference to it."""
    repository = ContextRepository(session)
    if request.context_id is not None and (
        await repository.get_build(tenant.id, request.context_id) is None
    ):
        raise NotFound(f"Context {request.context_id} does not exist.")
    memory = await read_memory(session, ctx, tenant, request.memory_id)
    await repository.record_references([request.memory_id])
    return memory.model_copy(
        update={"reference_count": memory.reference_count + 1, "last_referenced_at": utcnow()}
    )


async def record_feedback(
    session: AsyncSession,
    tenant: Tenant,
    context_id: uuid.UUID,
    body: ContextFeedback,
    efforts: EffortSettings | None = None,
) -> ContextFeedbackResponse:
    """Count references to the memories the LLM used, and the context's recall precision."""
    repository = ContextRepository(session)
    build = await repository.get_build(tenant.id, context_id, for_update=True)
    if build is None:
        raise NotFound(f"Context {context_id} does not exist.")
    if build.feedback is not None:
        raise Conflict("Feedback for this context was already recorded.", recorded=build.feedback)
    included = list(build.item_ids)
    if body.used_memory_ids is not None:
        # Which memories a context holds is stored state, not the request's form: 409.
        for memory_id in body.used_memory_ids:
            if memory_id not in included:
                raise Conflict(
                    f"Memory {memory_id} is not in context {context_id}.",
                    memory_id=str(memory_id),
                    included=[str(m) for m in included],
                )
        used = list(dict.fromkeys(body.used_memory_ids))
    else:
        texts = await repository.texts(included)
        used = referenced(body.reply or "", [(m, texts[m]) for m in included if m in texts])
    precision = round(len(used) / len(included), 4) if included else 0.0
    await repository.record_references(used)
    session_name = build.request.get("session_id")
    if body.reply is not None and isinstance(session_name, str) and efforts is not None:
        # The reply refers to efforts of the build's session too.
        await refer_in_reply(session, build.agent_id, session_name, body.reply, efforts)
    build.feedback = {
        "referenced": [str(m) for m in used],
        "precision": precision,
        "recorded_at": utcnow().isoformat(),
        "from": "reply" if body.reply is not None else "ids",
    }
    metrics.observe_feedback(precision)
    return ContextFeedbackResponse(
        context_id=context_id, referenced=used, included=len(included), precision=precision
    )
