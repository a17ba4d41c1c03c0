"""Context builds: select the frame, search, rank, fill the layers, store the manifest."""

import asyncio
import dataclasses
import time
import uuid
from collections.abc import Sequence
from datetime import datetime

import numpy as np
import structlog
from sqlalchemy.ext.asyncio import AsyncSession

from app.agents.models import Agent
from app.agents.service import get_agent
from app.context import metrics
from app.context.assembly import Assembly, FixedContent, Included, Rules, assemble
from app.context.budget import BudgetPlan, plan_budget
from app.context.calibration import calibrate
from app.context.engine import ContextEngine
from app.context.frames import effective_frames
from app.context.models import ContextBuild
from app.context.periods import Period, mentioned_period
from app.context.ranking import rank
from app.context.rendering import identity_text, working_memory_text
from app.context.repository import ContextRepository
from app.context.schemas import (
    ContextBuildRequest,
    ContextBuildResponse,
)
from app.context.search import SearchRepository, SearchSpec
from app.context.types import FLEXIBLE_KINDS, FrameChoice, Vector
from app.core.config import ContextSettings
from app.core.errors import NotFound
from app.core.time import utcnow
from app.providers.errors import ProviderError
from app.tenants.models import Tenant

log = structlog.get_logger(__name__)
_LEFT_OUT_SHOWN = 50


class _Clock:
    """Milliseconds spent in each stage of one build."""

    def __init__(self) -> None:
        self.started = self.mark = time.perf_counter()
        self.stages: dict[str, float] = {}

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self.stages[stage] = round((now - self.mark) * 1000, 3)
        self.mark = now

    def total(self) -> float:
        return round((time.perf_counter() - self.started) * 1000, 3)


@dataclasses.dataclass(frozen=True)
class InputEmbedding:
    """The input's vector, or why there is none."""

    vector: Vector | None
    reason: str | None = None


async def embed_input(engine: ContextEngine, text: str) -> InputEmbedding:
    """The input's embedding. A build does not wait for it past its deadline, nor calls a
    provider known to be down: words alone still find memories."""
    try:
        (vector,) = await engine.providers.embedder.embed(
            [text], deadline=engine.settings.embedding_deadline_seconds
        )
    except ProviderError as exc:
        log.warning("context.embedding_unavailable", error=str(exc))
        return InputEmbedding(None, f"{exc}; memories were found by their words alone")
    return InputEmbedding(np.asarray(vector, dtype=np.float32))


async def choose_frame(
    engine: ContextEngine, agent: Agent, text: str, vector: Vector | None, requested: str | None
) -> FrameChoice:
    """The requested frame, or the one the input selects among the agent's frames."""
    frames = effective_frames(agent.frames)
    if requested is not None and requested not in frames:
        # Whether the agent has a frame is stored state, not the request's form: 404.
        raise NotFound(
            f"Frame '{requested}' does not exist for agent '{agent.name}'; "
            "use one of allowed_frames or PUT /agents/{agent_id}/frames/{name} first.",
            allowed_frames=sorted(frames),
        )
    return await engine.selector.choose(text, vector, frames, requested)


_TOKENS_PER_HIT = 200  # a bigger budget has room for what happened around more of the hits


def neighbour_hits(settings: ContextSettings, budget: int) -> int:
    """How many strong episode hits bring their timeline neighbours, for a budget."""
    if settings.neighbour_hits == 0:
        return 0
    scaled = budget // _TOKENS_PER_HIT
    return max(settings.neighbour_hits, min(scaled, settings.neighbour_hits_max))


async def _search_spec(
    search: SearchRepository,
    engine: ContextEngine,
    agent: Agent,
    request: ContextBuildRequest,
    period: Period | None,
) -> SearchSpec:
    settings = engine.settings
    size = engine.cached_size(agent.id)
    if size is None:
        size = await search.agent_size(agent.id)
        engine.remember_size(agent.id, size)
    return SearchSpec(
        agent_id=agent.id,
        words=request.input,
        kinds=request.kinds or FLEXIBLE_KINDS,
        metadata=request.metadata,
        vector_limit=settings.vector_candidates,
        text_limit=settings.text_candidates,
        exact=size <= settings.exact_search_max_memories,
        corpus_size=size,
        common_word_memories=settings.common_word_memories,
        period=period,
    )


def _centroid(vector: Vector | None, assembly: Assembly) -> list[float] | None:
    vectors = [i.scored.candidate.embedding for layer in assembly.layers for i in layer.items]
    parts = [v for v in [vector, *vectors] if v is not None]
    if not parts:
        return None
    mean = np.mean(np.stack(parts), axis=0)
    norm = float(np.linalg.norm(mean))
    return (mean / norm).tolist() if norm > 0 else None


def _score_parts(items: Sequence[Included]) -> list[dict[str, float]]:
    """The score components of each item at 4 decimals, rounded in one numpy call."""
    if not items:
        return []
    names = tuple(items[0].scored.components)  # every candidate has the same components
    values = np.array([[item.scored.components[name] for name in names] for item in items])
    return [dict(zip(names, row, strict=True)) for row in np.round(values, 4).tolist()]


def _response(
    build_id: uuid.UUID,
    agent: Agent,
    assembly: Assembly,
    choice: FrameChoice,
    plan: BudgetPlan,
    encoding: str,
    candidates: int,
    clock: _Clock,
    created_at: datetime,
    parent_id: uuid.UUID | None,
    embedded: InputEmbedding,
) -> ContextBuildResponse:
    """The response, validated in one call: a build returns a hundred items and more, and
    pydantic checks nested plain data much faster than it constructs the models one by one."""
    included = [item for layer in assembly.layers for item in layer.items]
    similarities = [
        i.scored.components["semantic"] for i in included if i.scored.candidate.semantic is not None
    ]
    parts = iter(_score_parts(included))
    layers = [
        {
            "name": layer.name,
            "budget": layer.budget,
            "used": layer.used,
            "items": [
                {
                    "memory_id": i.scored.candidate.memory_id,
                    "kind": i.scored.candidate.kind,
                    "detail": i.detail,
                    "tokens": i.tokens,
                    "score": i.scored.score,
                    "components": next(parts),
                }
                for i in layer.items
            ],
        }
        for layer in assembly.layers
    ]
    left_out = [
        {
            "memory_id": e.scored.candidate.memory_id,
            "kind": e.scored.candidate.kind,
            "reason": e.reason,
            "score": e.scored.score,
        }
        for e in assembly.excluded[:_LEFT_OUT_SHOWN]
    ]
    return ContextBuildResponse.model_validate(
        {
            "context_id": build_id,
            "agent_id": agent.name,
            "context": assembly.text,
            "frame": {
                "name": choice.frame.name,
                "confidence": choice.confidence,
                "source": choice.source,
                "scores": choice.scores,
            },
            "layers": layers,
            "left_out": left_out,
            "totals": {
                "budget": plan.total,
                "budget_source": plan.source,
                "used": assembly.tokens,
                "utilization": round(assembly.tokens / plan.total, 4),
                "encoding": encoding,
                "candidates": candidates,
            },
            "relevance": round(float(np.mean(similarities)), 4) if similarities else None,
            "input_embedding": {"embedded": embedded.vector is not None, "reason": embedded.reason},
            "timings_ms": {**clock.stages, "total": clock.total()},
            "created_at": created_at,
            "parent_id": parent_id,
        }
    )


async def build_context(
    session: AsyncSession,
    engine: ContextEngine,
    tenant: Tenant,
    request: ContextBuildRequest,
    *,
    parent_id: uuid.UUID | None = None,
) -> ContextBuildResponse:
    """Build the context for one input and store its manifest."""
    clock = _Clock()
    # The input is embedded on a thread while the database finds the agent and matches words.
    embedding = asyncio.create_task(embed_input(engine, request.input))
    try:
        agent = await get_agent(session, tenant, request.agent_id)
        repository, search = ContextRepository(session), SearchRepository(session)
        censors, reviewed = await repository.standing(agent.id)
        period = mentioned_period(request.input)
        spec = await _search_spec(search, engine, agent, request, period)
        frequencies = await search.word_frequencies(spec, engine.known_words(agent.id))
        engine.remember_words(agent.id, frequencies)
        words = await search.match_words(spec, frequencies)
        clock.lap("words")
        embedded = await embedding
    finally:
        embedding.cancel()  # a no-op once embedded; else the build failed and needs no vector
    vector = embedded.vector
    tokens = engine.providers.tokens
    encoding = tokens.encoding_for_model(request.model or agent.model)
    clock.lap("embed")
    choice = await choose_frame(engine, agent, request.input, vector, request.frame)
    plan = plan_budget(
        request.budget,
        choice.frame.default_budget,
        agent.default_budget,
        engine.settings.default_budget,
        request.input,
    )
    clock.lap("frame")
    spec = dataclasses.replace(
        spec,
        neighbour_hits=neighbour_hits(engine.settings, plan.total),
        neighbour_window=engine.settings.neighbour_window,
    )
    candidates = await search.finish_search(spec, words, vector)
    calibration = calibrate(reviewed)
    clock.lap("search")
    ranked = rank(candidates, choice.frame, request.now or utcnow(), engine.weights, period)
    clock.lap("rank")
    content = FixedContent(
        identity=identity_text(agent.identity),
        censors=censors,
        frame=choice.frame,
        working_memory=working_memory_text(agent.working_memory),
        calibration=calibration.note if calibration else None,
    )
    settings = engine.settings
    rules = Rules(settings.min_similarity, settings.duplicate_similarity, settings.summary_share)
    assembly = assemble(
        tokens.bound(encoding),
        plan.total,
        content,
        ranked,
        flexible_scale=plan.flexible_scale,
        rules=rules,
    )
    clock.lap("assemble")
    build_id, created_at = uuid.uuid4(), utcnow()
    response = _response(
        build_id,
        agent,
        assembly,
        choice,
        plan,
        encoding,
        len(candidates),
        clock,
        created_at,
        parent_id,
        embedded,
    )
    # The stored manifest has every stage but its own storing; the response adds that too.
    await repository.add_build(
        ContextBuild(
            id=build_id,
            tenant_id=tenant.id,
            agent_id=agent.id,
            parent_id=parent_id,
            input=request.input,
            frame=choice.frame.name,
            budget=plan.total,
            tokens_used=assembly.tokens,
            request=request.model_dump(mode="json"),
            response=response.model_dump_json(),
            item_ids=included_ids(response),
            centroid=_centroid(vector, assembly),
            relevance=response.relevance,
            created_at=created_at,
        )
    )
    clock.lap("store")
    response.timings_ms = {**clock.stages, "total": clock.total()}
    metrics.observe_build(response, assembly, first=not engine.served_first_build)
    engine.served_first_build = True
    return response


async def read_build(
    session: AsyncSession, tenant: Tenant, context_id: uuid.UUID
) -> ContextBuildResponse:
    """A stored build, as it was returned."""
    build = await ContextRepository(session).get_build(tenant.id, context_id)
    if build is None:
        raise NotFound(f"Context {context_id} does not exist.")
    return ContextBuildResponse.model_validate_json(build.response)


def included_ids(response: ContextBuildResponse) -> list[uuid.UUID]:
    return [item.memory_id for layer in response.layers for item in layer.items]
