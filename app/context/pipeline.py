"""One context build, step by step (the map is in README.md beside this file):

    gather (I/O) → frame → budget → search (I/O) → rank → links (I/O) → premises → constraints
    → fill → render → trim → history and recall (I/O, with a session) → manifest → store (I/O)

`build` runs them in three parts: `_select` (frame to constraints), `_compose` (Past Learnings,
the layers filled, rendered and trimmed, the premises' note) and `_store`. Gathering
(`retrieval/gather.py`) finds the agent, its standing constraints and reviewed decisions, and
the input's word matches while the input is embedded on another thread. The steps from rank to
manifest are pure functions over plain data, in modules named for them. With a session, Past
Learnings take their share of the window first (`history/learnings.py`), the memory layers
theirs without them, and the history fills what the context left (`history/conversation.py`).
"""

import uuid
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from typing import cast

import structlog
from sqlalchemy.ext.asyncio import AsyncSession

from app.agents.models import Agent
from app.context import metrics, storing
from app.context.engine import ContextEngine
from app.context.frames.choice import effective_frames
from app.context.history import conversation, learnings
from app.context.history.learnings import Learnings
from app.context.history.window import AgentWindow, learnings_share, memory_plan, resolve_window
from app.context.premises import check as premises
from app.context.premises.check import PremiseCheck
from app.context.retrieval import links
from app.context.retrieval.gather import Gathered, gather
from app.context.retrieval.search import SearchRepository
from app.context.schemas import ContextBuildRequest, ContextBuildResponse
from app.context.selection.budget import (
    BudgetPlan,
    flexible_pool,
    flexible_shares,
    neighbours,
    plan_budget,
)
from app.context.selection.constraints import CensorRules, ScoredCensor, choose_censors
from app.context.selection.fill import DEFAULT_RULES, Rules, fill
from app.context.selection.gate import admissions, gate_bar, strongest
from app.context.selection.ranking import rank
from app.context.text.calibration import calibrate
from app.context.text.manifest import Assembly, Built, account, manifest
from app.context.text.render import (
    FixedContent,
    fit_fixed,
    identity_text,
    working_memory_text,
)
from app.context.text.trim import within_budget
from app.context.types import Admission, Candidate, Censor, FrameChoice, Scored, Vector
from app.core.clock import Clock
from app.core.context_config import ContextSettings, WindowSettings
from app.core.errors import NotFound
from app.core.time import utcnow
from app.providers.tokenizer import Tokens
from app.tenants.models import Tenant

log = structlog.get_logger(__name__)


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


def assemble(
    tokens: Tokens,
    total: int,
    content: FixedContent,
    ranked: list[Scored],
    *,
    flexible_scale: float = 1.0,
    rules: Rules = DEFAULT_RULES,
    censors: Sequence[ScoredCensor] = (),
    reserved: Collection[uuid.UUID] = frozenset(),
    admitted: Sequence[Admission | None] | None = None,
) -> Assembly:
    """The pure end of a build: the fixed sections within their caps, the memory layers filled
    at their detail levels, the text rendered and held to `total` tokens, and its accounts
    (`censors`: every censor scored, for the manifest; `content` holds the chosen ones;
    `reserved`: the candidates Past Learnings show, neither in a layer nor left out;
    `admitted`: the gate's judgement of `ranked`, when the build has it)."""
    fixed = fit_fixed(tokens, content, total)
    pool = flexible_pool(total, fixed.used(tokens), flexible_scale)
    shares = flexible_shares(pool, content.frame.priorities)
    layers = fill(tokens, ranked, pool, shares, rules, reserved, admitted)
    text, count = within_budget(tokens, total, fixed, layers)
    bar = gate_bar(ranked, rules.gate)  # over the candidates the fill judged
    if reserved:
        ranked = [s for s in ranked if s.candidate.memory_id not in reserved]
    assembly = account(tokens, fixed, layers, shares, ranked, text, count, censors)
    return replace(assembly, gate=bar)


@dataclass(frozen=True)
class Build:
    """A build as returned (its JSON as sent), and the memories it holds."""

    item_ids: list[uuid.UUID]
    document: str

    def response(self) -> ContextBuildResponse:
        """The build as its model (a refresh returns it inside its own answer)."""
        return ContextBuildResponse.model_validate_json(self.document)


@dataclass(frozen=True)
class Selection:
    """What the steps from frame to constraints chose for a build."""

    choice: FrameChoice
    window: WindowSettings | None
    plan: BudgetPlan
    candidate_count: int
    ranked: list[Scored]
    admitted: list[Admission | None]  # the gate's judgement of each of `ranked`
    checked: PremiseCheck
    censors: list[ScoredCensor]


async def build(
    session: AsyncSession,
    engine: ContextEngine,
    tenant: Tenant,
    request: ContextBuildRequest,
    *,
    parent_id: uuid.UUID | None = None,
) -> Build:
    """Build the context for one input, store it, and record its metrics."""
    clock = Clock()
    search = SearchRepository(session, engine.corpus)
    gathered = await gather(session, engine, tenant, request, search, clock)
    agent = gathered.agent
    encoding = engine.providers.tokens.encoding_for_model(request.model or agent.model)
    clock.lap("embed")
    chosen = await _select(session, engine, request, gathered, search, clock)
    tokens = engine.providers.tokens.bound(encoding)
    assembly, learned, checked = _compose(tokens, engine.settings, gathered, chosen)
    clock.lap("assemble")
    found = None
    if chosen.window and request.session_id and learned:
        text, count, learned = learnings.attach(tokens, assembly.text, assembly.tokens, learned)
        # The history takes what the context, counted exactly, left of available; the evicted
        # messages the input clearly refers to come back into the context.
        found = await conversation.history(
            session,
            tokens,
            agent.id,
            request.session_id,
            chosen.window,
            conversation.ForInput(text, count, gathered.words.terms, gathered.embedding.vector),
            settings=engine.settings,
            clock=clock,
        )
    built = Built(
        uuid.uuid4(), utcnow(), parent_id, agent.id, agent.name, chosen.choice, chosen.plan,
        encoding, chosen.candidate_count, assembly, gathered.embedding, found, learned, checked,
    )  # fmt: skip
    return await _store(session, engine, tenant, request, built, clock)


async def _select(
    session: AsyncSession,
    engine: ContextEngine,
    request: ContextBuildRequest,
    gathered: Gathered,
    search: SearchRepository,
    clock: Clock,
) -> Selection:
    """Frame, budget, search, rank, links, premises and constraints."""
    settings, agent, vector = engine.settings, gathered.agent, gathered.embedding.vector
    choice = await choose_frame(engine, agent, request.input, vector, request.frame)
    window = resolve_window(request, AgentWindow(agent.name, agent.default_window), settings.window)
    plan = (
        memory_plan(window, request.budget)
        if window
        else plan_budget(
            request.budget,
            choice.frame.default_budget,
            agent.default_budget,
            settings.default_budget,
            request.input,
        )
    )
    clock.lap("frame")
    rescore = gathered.embedding.rescore
    candidates = await search.finish(
        gathered.spec, gathered.words, vector, neighbours(settings, plan.total), rescore
    )
    clock.lap("search")
    now = request.now or utcnow()

    def ranking(found: list[Candidate]) -> list[Scored]:
        return rank(
            found, choice.frame, now, settings.weights, settings.half_life_days,
            gathered.period, gathered.words.reference,
        )  # fmt: skip

    ranked = ranking(candidates)
    clock.lap("rank")
    anchors = engine.providers.anchors.find(request.input)
    inputs = links.Inputs(gathered.spec, anchors, vector, rescore)
    ranked = await links.with_ties(search, settings, ranked, inputs, ranking)
    clock.lap("links")
    checked = await premises.check(session, settings, gathered.spec, request.input, ranked)
    clock.lap("premises")
    admitted = admissions(ranked, Rules.of(settings).gate)  # judged once: read thrice
    rules = CensorRules()
    hits = strongest(ranked, admitted, rules.hits_read)
    censors = choose_censors(
        gathered.standing.censors, vector, gathered.words.terms, choice.frame, rules, hits
    )
    return Selection(choice, window, plan, len(candidates), ranked, admitted, checked, censors)


def _compose(
    tokens: Tokens, settings: ContextSettings, gathered: Gathered, chosen: Selection
) -> tuple[Assembly, Learnings | None, PremiseCheck]:
    """Past Learnings (with a window) first, then the layers filled without what they show,
    and the premises' note at the end (the check says whether the note is in the context)."""
    rules, plan, checked = Rules.of(settings), chosen.plan, chosen.checked
    learned = None
    if chosen.window:  # Past Learnings first: the layers fill without what they show
        learned = learnings.choose(
            tokens, chosen.ranked, chosen.admitted, rules.duplicate_similarity,
            learnings_share(chosen.window, plan.total), gathered.standing.notes,
            settings.learnings_max,
        )  # fmt: skip
    assembly = assemble(
        tokens,
        plan.total - premises.reserve(tokens, checked, plan.total),  # the note's room
        _fixed_content(gathered, chosen.choice, [s.censor for s in chosen.censors if s.chosen]),
        chosen.ranked,
        flexible_scale=plan.flexible_scale,
        rules=rules,
        censors=chosen.censors,
        reserved=learned.ids() if learned else frozenset(),
        admitted=chosen.admitted,
    )
    text, count, checked = premises.attach(
        tokens, assembly.text, assembly.tokens, checked, plan.total
    )
    return replace(assembly, text=text, tokens=count), learned, checked


async def _store(
    session: AsyncSession,
    engine: ContextEngine,
    tenant: Tenant,
    request: ContextBuildRequest,
    built: Built,
    clock: Clock,
) -> Build:
    """The manifest encoded once, stored, and sent with the store's time; the metrics."""
    stored = manifest(built, clock.so_far(), request.manifest)
    document = storing.encode(stored)  # encoded once: stored, and sent with the store's time
    relevance = cast(float | None, stored["relevance"])
    await storing.store(session, tenant, request, built, document, relevance)
    clock.lap("store")
    # The stored manifest has every stage but its own storing; the response has that too.
    timings = clock.so_far()
    metrics.observe_build(built, timings, relevance, first=not engine.served_first_build)
    engine.served_first_build = True
    return Build(built.item_ids(), storing.with_timings(document, timings))


def _fixed_content(
    gathered: Gathered, choice: FrameChoice, censors: Sequence[Censor]
) -> FixedContent:
    calibration = calibrate(gathered.standing.reviewed)
    return FixedContent(
        identity=identity_text(gathered.agent.identity),
        censors=censors,
        frame=choice.frame,
        working_memory=working_memory_text(gathered.agent.working_memory),
        calibration=calibration.note if calibration else None,
    )
