"""Refresh: rebuild a context when the conversation has moved on, and say why."""

import numpy as np
from sqlalchemy.ext.asyncio import AsyncSession

from app.agents.models import Agent
from app.agents.repository import AgentRepository
from app.context import metrics, pipeline
from app.context.engine import ContextEngine
from app.context.followups.schemas import (
    ContextDelta,
    ContextRefreshRequest,
    ContextRefreshResponse,
    RefreshReason,
)
from app.context.frames.choice import effective_frames
from app.context.history.pressure import encoding_of, session_pressure
from app.context.models import ContextBuild
from app.context.repository import ContextRepository
from app.context.retrieval.input_embedding import embed_input
from app.context.schemas import STORED_REQUEST, ContextBuildRequest, ContextBuildResponse
from app.context.types import FrameChoice, Vector
from app.core.errors import NotFound
from app.tenants.models import Tenant


async def refresh_context(
    session: AsyncSession, engine: ContextEngine, tenant: Tenant, request: ContextRefreshRequest
) -> ContextRefreshResponse:
    """Keep the context when it still fits the new input; otherwise rebuild it with the delta."""
    build = await ContextRepository(session).get_build(tenant.id, request.context_id)
    agent = await AgentRepository(session).by_id(tenant.id, build.agent_id) if build else None
    if build is None or agent is None:  # an erased agent's builds are erased with it
        raise NotFound(f"Context {request.context_id} does not exist.")
    original = ContextBuildRequest.model_validate(build.request, context=STORED_REQUEST)
    vector = (await embed_input(engine, tenant, request.input, rescore=False)).vector
    choice = await pipeline.choose_frame(engine, agent, request.input, vector, original.frame)
    similarity = _similarity(vector, build)
    reasons = _reasons(engine, request, build, choice, similarity)
    if "token_pressure" not in reasons and await _history_pressure(session, engine, agent, build):
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
    rebuilt = await pipeline.build(
        session,
        engine,
        tenant,
        _rebuild_request(original, request, choice, agent),
        parent_id=build.id,
    )
    before, after = set(build.item_ids), set(rebuilt.item_ids)
    delta = ContextDelta(
        added=[m for m in rebuilt.item_ids if m not in before],
        removed=[m for m in build.item_ids if m not in after],
    )
    response = rebuilt.response()
    return ContextRefreshResponse(
        refreshed=True,
        reasons=reasons,
        similarity=similarity,
        frame=response.frame.name,
        build=response,
        delta=delta,
    )


def _similarity(vector: Vector | None, build: ContextBuild) -> float | None:
    """Of the new input to what the context was built for (see `text/manifest.py` `centroid`)."""
    if vector is None or build.centroid is None:
        return None
    return round(float(np.dot(vector, np.asarray(build.centroid))), 4)


def _reasons(
    engine: ContextEngine,
    request: ContextRefreshRequest,
    build: ContextBuild,
    choice: FrameChoice,
    similarity: float | None,
) -> list[RefreshReason]:
    reasons: list[RefreshReason] = []
    if choice.frame.name != build.frame:
        reasons.append("frame_switch")
    if similarity is not None and similarity < engine.settings.drift_threshold:
        reasons.append("topic_drift")
    if request.decision_point:
        reasons.append("decision_point")
    if request.budget is not None and build.tokens_used > request.budget:
        reasons.append("token_pressure")
    return reasons


async def _history_pressure(
    session: AsyncSession, engine: ContextEngine, agent: Agent, build: ContextBuild
) -> bool:
    """With a session: whether the build's context, the messages it sent and those appended
    since still fit its window (`history/pressure.py`)."""
    if build.request.get("session_id") is None:
        return False
    stored = ContextBuildResponse.model_validate_json(build.response)
    if stored.history is None:  # stored by a version without histories
        return False
    counter = engine.providers.tokens
    tokens = counter.bound(encoding_of(stored.totals.encoding, counter.default_encoding))
    return await session_pressure(session, tokens, agent, stored.history)


def _rebuild_request(
    original: ContextBuildRequest,
    request: ContextRefreshRequest,
    choice: FrameChoice,
    agent: Agent,
) -> ContextBuildRequest:
    """The original request, its session and window kept, with the new input (and budget: with
    a window, the memory layers'); at a decision point, the decision frame."""
    frame = original.frame
    if request.decision_point and choice.frame.name != "decision":
        frame = "decision" if "decision" in effective_frames(agent.frames) else frame
    return original.model_copy(
        update={
            "input": request.input,
            "frame": frame,
            "budget": request.budget if request.budget is not None else original.budget,
        }
    )
