"""Sessions: conversations of an agent, appended to message by message and read in order."""

import asyncio
import uuid
from collections.abc import Sequence
from datetime import UTC

import numpy as np
import structlog
from numpy.typing import NDArray
from sqlalchemy.ext.asyncio import AsyncSession

from app.agents.models import Agent
from app.agents.service import get_agent
from app.core.bodies import check_batch_size
from app.core.context_config import ContextSettings
from app.core.cursor import decode_position, encode_position
from app.core.errors import NotFound
from app.core.jobs import JobRepository
from app.core.replays import ReplayRepository
from app.core.time import utcnow
from app.providers.errors import ProviderError
from app.providers.tokenizer import TokenCounter
from app.sessions.input_vectors import InputEmbedders, InputVectorRepository
from app.sessions.models import ConversationSession, SessionMessage, SessionSummary
from app.sessions.peers import SessionPeers
from app.sessions.repository import SessionRepository
from app.sessions.schemas import (
    ChatMessageCreate,
    MessageBatchRead,
    MessageCreate,
    MessagePage,
    MessageRead,
    SessionPage,
    SessionRead,
    SessionSummaryRead,
    ToolMessageCreate,
)
from app.sessions.spans import completes_a_block
from app.sessions.summary_repository import SummaryRepository
from app.tenants.models import Tenant

log = structlog.get_logger(__name__)


def _count_tokens(tokens: TokenCounter, contents: Sequence[str]) -> list[int]:
    return [tokens.count(content) for content in contents]


def _new_message(
    conversation: ConversationSession, seq: int, item: MessageCreate, tokens: int
) -> SessionMessage:
    """The row of an appended message; without a time of its own it takes the append's."""
    return SessionMessage(
        id=uuid.uuid4(),
        session_id=conversation.id,
        seq=seq,
        role=item.role,
        content=item.content,
        name=item.name if isinstance(item, ChatMessageCreate) else None,
        tool_call_id=item.tool_call_id if isinstance(item, ToolMessageCreate) else None,
        # In UTC, as read back from the database: the append and the list answer alike.
        created_at=(item.created_at or conversation.updated_at).astimezone(UTC),
        tokens=tokens,
    )


def _message_read(message: SessionMessage) -> MessageRead:
    return MessageRead.model_validate(message, from_attributes=True)


async def _session_reads(
    repository: SessionRepository, conversations: Sequence[ConversationSession], agent: Agent
) -> list[SessionRead]:
    """The API view of sessions of an agent: three statements, however many sessions."""
    # A session opened by an effort has no message yet, so no times to read.
    ends = {c.id: (0, c.message_count - 1) for c in conversations if c.message_count}
    times = await repository.times_at([(i, seq) for i, pair in ends.items() for seq in pair])
    summaries = await SummaryRepository(repository.session).summaries(list(ends))
    return [
        SessionRead(
            session_id=conversation.name,
            agent_id=agent.name,
            created_at=conversation.created_at,
            updated_at=conversation.updated_at,
            messages=conversation.message_count,
            tokens=conversation.token_count,
            first_message_at=times.get((conversation.id, 0)),
            last_message_at=times.get((conversation.id, conversation.message_count - 1)),
            summaries=[_summary_read(s) for s in summaries.get(conversation.id, [])],
        )
        for conversation in conversations
    ]


def _summary_read(summary: SessionSummary) -> SessionSummaryRead:
    return SessionSummaryRead(
        depth=summary.depth,
        first_seq=summary.first_seq,
        last_seq=summary.last_seq,
        messages=summary.message_count,
        start=summary.first_message_at,
        end=summary.last_message_at,
        tokens=summary.tokens,
        method="llm" if summary.method == "llm" else "extractive",
    )


async def _session_read(
    repository: SessionRepository, conversation: ConversationSession, agent: Agent
) -> SessionRead:
    return (await _session_reads(repository, [conversation], agent))[0]


async def append_messages(
    session: AsyncSession,
    tenant: Tenant,
    agent_name: str,
    session_name: str,
    items: Sequence[MessageCreate],
    *,
    tokens: TokenCounter,
    max_items: int,
    context: ContextSettings,
    max_attempts: int,
    peers: SessionPeers,
    embedders: InputEmbedders,
) -> MessageBatchRead:
    """Append messages in order to the session (created by its first message); all or none.
    The last user message is embedded at once (`_embed_input`), the others in the background
    (`_queue_jobs`)."""
    check_batch_size(items, max_items, "messages")
    last = _last_user_message(items)
    if last:
        embedders.start(tenant.id, last)  # meanwhile
    agent = await get_agent(session, tenant, agent_name)
    # Tokenizing is CPU work: off the event loop, and before the session is locked.
    counts = await asyncio.to_thread(_count_tokens, tokens, [item.content for item in items])
    repository = SessionRepository(session)
    now = utcnow()
    conversation = await repository.lock_or_create(tenant.id, agent.id, session_name, now)
    conversation.updated_at = now
    first = conversation.message_count
    messages = [
        _new_message(conversation, first + i, item, count)
        for i, (item, count) in enumerate(zip(items, counts, strict=True))
    ]
    vectors = await _embed_input(embedders, tenant, last) if last else {}
    if last:  # the message's own vector too, where the model's query vector is its document's
        message = next(m for m in reversed(messages) if m.role == "user")
        message.embedding = embedders.as_document(vectors)
    await peers.appended(session, conversation, messages, context.efforts)
    await repository.add_messages(messages)
    conversation.message_count += len(messages)
    conversation.token_count += sum(counts)
    await repository.flush()
    await _queue_jobs(JobRepository(session), conversation, messages, first, context, max_attempts)
    if last:
        await InputVectorRepository(session).keep(tenant.id, conversation.id, last, vectors)
    return MessageBatchRead(
        session=await _session_read(repository, conversation, agent),
        messages=[_message_read(message) for message in messages],
    )


def _last_user_message(items: Sequence[MessageCreate]) -> str | None:
    return next((item.content for item in reversed(items) if item.role == "user"), None)


async def _embed_input(
    embedders: InputEmbedders, tenant: Tenant, text: str
) -> dict[str, NDArray[np.float32]]:
    """The last user message's vectors by each model (the search model's and the rescoring
    one's), for the build likely to take it as its input next, in whichever API process it
    lands; one that fails or is late is left to that build."""
    vectors = {}
    for model in embedders.models:
        try:
            vectors[model.model_name] = await model.vector(
                tenant.id, text, deadline=embedders.deadline
            )
        except ProviderError as exc:
            log.info("sessions.input_not_embedded", error=str(exc))
    return vectors


async def _queue_jobs(
    jobs: JobRepository,
    conversation: ConversationSession,
    messages: Sequence[SessionMessage],
    first: int,
    context: ContextSettings,
    max_attempts: int,
) -> None:
    """The session's `embed_messages` job when a message has no vector yet, and its summaries
    job when the append completes a span older than the fresh tail or holds a long assistant or
    tool message."""
    if any(message.embedding is None for message in messages):
        await jobs.enqueue_for_session(conversation.id, "embed_messages", max_attempts=max_attempts)
    span, tail = context.summaries.span, context.window.fresh_tail
    long = context.summaries.long_message_tokens
    has_long = long > 0 and any(
        m.role in ("assistant", "tool") and m.tokens > long for m in messages
    )
    if has_long or completes_a_block(first, conversation.message_count, tail, span):
        await jobs.enqueue_for_session(
            conversation.id, "summarize_spans", max_attempts=max_attempts
        )


async def _find(
    session: AsyncSession, tenant: Tenant, agent_name: str, session_name: str
) -> tuple[Agent, ConversationSession]:
    agent = await get_agent(session, tenant, agent_name)
    conversation = await SessionRepository(session).get(agent.id, session_name)
    if conversation is None:
        raise NotFound(
            f"Agent '{agent_name}' has no session '{session_name}'. Its first message creates "
            f"it: POST /agents/{agent_name}/sessions/{session_name}/messages."
        )
    return agent, conversation


async def read_session(
    session: AsyncSession, tenant: Tenant, agent_name: str, session_name: str
) -> SessionRead:
    """A session's counts, tokens and summaries."""
    agent, conversation = await _find(session, tenant, agent_name, session_name)
    return await _session_read(SessionRepository(session), conversation, agent)


async def list_messages(
    session: AsyncSession,
    tenant: Tenant,
    agent_name: str,
    session_name: str,
    *,
    cursor: int | None,
    limit: int,
) -> MessagePage:
    """One page of a session's messages, oldest first, after seq `cursor` when given."""
    _agent, conversation = await _find(session, tenant, agent_name, session_name)
    rows = await SessionRepository(session).page(conversation.id, after=cursor, limit=limit + 1)
    page = rows[:limit]
    return MessagePage(
        items=[_message_read(message) for message in page],
        next_cursor=page[-1].seq if len(rows) > limit else None,
    )


async def list_sessions(
    session: AsyncSession, tenant: Tenant, agent_name: str, *, cursor: str | None, limit: int
) -> SessionPage:
    """One page of an agent's sessions, newest first; a cursor keeps to the sessions created
    before its position."""
    agent = await get_agent(session, tenant, agent_name)
    repository = SessionRepository(session)
    after = decode_position(cursor) if cursor else None
    rows = await repository.sessions_page(agent.id, after=after, limit=limit + 1)
    page = rows[:limit]
    more = len(rows) > limit
    return SessionPage(
        items=await _session_reads(repository, page, agent),
        next_cursor=encode_position(page[-1].created_at, page[-1].name) if more else None,
    )


async def erase_session(
    session: AsyncSession, peers: SessionPeers, tenant: Tenant, agent_name: str, session_name: str
) -> None:
    """Erase a session: its messages, summaries, efforts and jobs, the builds made with it
    (their responses hold its messages) and the stored responses that show any of these."""
    agent, conversation = await _find(session, tenant, agent_name, session_name)
    await JobRepository(session).delete_for_session(conversation.id)
    if not await SessionRepository(session).delete(conversation.id):
        raise NotFound(f"Agent '{agent_name}' has no session '{session_name}'.")
    builds = await peers.builds_erased(session, agent.id, session_name)
    await ReplayRepository(session).forget_session(tenant.id, agent.name, session_name, builds)
