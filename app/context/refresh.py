"""Refresh: rebuild a context when the conversation has moved on, and say why."""

import numpy as np
from sqlalchemy.ext.asyncio import AsyncSession

from app.agents.repository import AgentRepository
from app.context import metrics
from app.context.engine import ContextEngine
from app.context.frames import effective_frames
from app.context.repository import ContextRepository
from app.context.schemas import (
    ContextBuildRequest,
    ContextDelta,
    ContextRefreshRequest,
    ContextRefreshResponse,
    RefreshReason,
)
from app.context.service import build_context, choose_frame, embed_input, included_ids
from app.core.errors import NotFound
from app.tenants.models import Tenant


async def refresh_context(
    session: AsyncSession, engine: ContextEngine, tenant: Tenant, request: ContextRefreshRequest
) -> ContextRefreshResponse:
    """Keep the context when it still fits the new input; otherwise rebuild it with the delta."""
    repository = ContextRepository(session)
    build = await repository.get_build(tenant.id, request.context_id)
    if build is None:
        raise NotFound(f"Context {request.context_id} does not exist.")
    agent = await AgentRepository(session).by_id(tenant.id, build.agent_id)
    if agent is None:  # a build's agent is never deleted; kept for the type checker
        raise NotFound(f"Context {request.context_id} does not exist.")
    original = ContextBuildRequest.model_validate(build.request)
    vector = (await embed_input(engine, request.input)).vector
    choice = await choose_frame(engine, agent, request.input, vector, original.frame)

    reasons: list[RefreshReason] = []
    if choice.frame.name != build.frame:
        reasons.append("frame_switch")
    similarity = None
    if vector is not None and build.centroid is not None:
        similarity = round(float(np.dot(vector, np.asarray(build.centroid))), 4)
        if similarity < engine.settings.drift_threshold:
            reasons.append("topic_drift")
    if request.decision_point:
        reasons.append("decision_point")
    if request.budget is not None and build.tokens_used > request.budget:
        reasons.append("token_pressure")
    metrics.observe_refresh(list(reasons))
    if not reasons:
        return ContextRefreshResponse(
            refreshed=False,
            reasons=[],
            similarity=similarity,
            frame=choice.frame.name,
            build=None,
            delta=None,
        )

    frame = original.frame
    if request.decision_point and choice.frame.name != "decision":
        frame = "decision" if "decision" in effective_frames(agent.frames) else frame
    rebuilt = await build_context(
        session,
        engine,
        tenant,
        original.model_copy(
            update={
                "input": request.input,
                "frame": frame,
                "budget": request.budget if request.budget is not None else original.budget,
            }
        ),
        parent_id=build.id,
    )
    before, after = set(build.item_ids), set(included_ids(rebuilt))
    delta = ContextDelta(
        added=[m for m in included_ids(rebuilt) if m not in before],
        removed=[m for m in build.item_ids if m not in after],
    )
    return ContextRefreshResponse(
        refreshed=True,
        reasons=reasons,
        similarity=similarity,
        frame=rebuilt.frame.name,
        build=rebuilt,
        delta=delta,
    )
