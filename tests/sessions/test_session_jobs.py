"""A session's background jobs: one waits per session and task, and a worker claims it with the
session as its subject."""

from datetime import timedelta

import httpx
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.job_models import Job
from app.core.jobs import JobRepository
from app.sessions.models import ConversationSession
from tests.factories import Tenancy, put_agent


async def test_one_job_waits_per_session_and_task(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    await put_agent(client, tenancy, "newton")
    response = await client.post(
        "/agents/newton/sessions/chat-1/messages",
        json={"messages": [{"role": "assistant", "content": "Hello."}]},
        headers=tenancy.headers,
    )
    assert response.status_code == 201, response.text
    async with sessionmaker() as session:
        session_id = await session.scalar(
            select(ConversationSession.id).where(ConversationSession.name == "chat-1")
        )
        assert session_id is not None
        jobs = JobRepository(session)
        before = await session.scalar(select(func.count()).select_from(Job))
        for _ in range(3):
            await jobs.enqueue_for_session(session_id, "summarize_spans", max_attempts=3)
        await jobs.enqueue_for_session(session_id, "embed_messages", max_attempts=3)
        after = await session.scalar(select(func.count()).select_from(Job))
        assert after == (before or 0) + 1  # the append queued the vectors job already

        (claimed,) = await jobs.claim("w1", "summarize_spans", 10, timedelta(minutes=1))
        assert claimed.subject_id == session_id
        # While it runs, new work queues a new job: the running one may have read too early.
        await jobs.enqueue_for_session(session_id, "summarize_spans", max_attempts=3)
        waiting = await session.scalar(
            select(func.count())
            .select_from(Job)
            .where(Job.session_id == session_id, Job.state == "queued")
        )
        assert waiting == 2  # the new summaries job and the vectors job


async def test_a_gone_workers_session_jobs_leave_one_waiting(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    """Two workers died holding the same session's jobs of one task, while a third waits: all
    of it is released without breaking the one-waiting-job rule."""
    await put_agent(client, tenancy, "newton")
    response = await client.post(
        "/agents/newton/sessions/chat-2/messages",
        json={"messages": [{"role": "assistant", "content": "Hello."}]},
        headers=tenancy.headers,
    )
    assert response.status_code == 201, response.text
    async with sessionmaker() as session:
        session_id = await session.scalar(
            select(ConversationSession.id).where(ConversationSession.name == "chat-2")
        )
        assert session_id is not None
        jobs = JobRepository(session)
        lease = timedelta(minutes=1)
        await jobs.enqueue_for_session(session_id, "summarize_spans", max_attempts=3)
        await jobs.claim("gone-1", "summarize_spans", 10, lease)
        await jobs.claim("gone-1", "embed_messages", 10, lease)
        await jobs.enqueue_for_session(session_id, "embed_messages", max_attempts=3)
        await jobs.claim("gone-2", "embed_messages", 10, lease)
        await jobs.enqueue_for_session(session_id, "embed_messages", max_attempts=3)

        assert await jobs.release_from(["gone-1", "gone-2"]) == 3
        rows = await session.execute(
            select(Job.task, Job.state).where(Job.session_id == session_id)
        )
        waiting = sorted(task for task, state in rows if state == "queued")
        assert waiting == ["embed_messages", "summarize_spans"]
