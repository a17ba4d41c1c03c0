"""A concluded effort's summary is made in the background by the configured LLM, extractive
while it is down: the job does not wait for it."""

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.config import Settings
from app.core.db import Database
from tests.efforts.helpers import act, efforts, open_effort, say
from tests.factories import Tenancy, put_agent
from tests.fake_openai import FakeOpenAI
from tests.fake_openai_answers import SUMMARY_PREFIX
from tests.openai_stack import open_stack


async def test_llm_summary_and_extractive_while_it_is_down(
    settings: Settings,
    database: Database,
    sessionmaker: async_sessionmaker[AsyncSession],
    fake: FakeOpenAI,
    tenancy: Tenancy,
) -> None:
    async with open_stack(settings, database, sessionmaker, fake) as stack:
        client = stack.client
        await put_agent(client, tenancy)
        for title in ("Ledger migration", "Onboarding guide"):
            effort_id = await open_effort(client, tenancy, title)
            await say(
                client,
                tenancy,
                ("user", f"Let us work on the {title.lower()}."),
                ("assistant", f"The {title.lower()} is done: every step was checked."),
            )
            assert (await act(client, tenancy, effort_id, "conclude")).status_code == 200
            await stack.worker.drain()
            fake.fail_all()  # down for the second one
        listed = await efforts(client, tenancy)
        first, second = listed["e_1"], listed["e_2"]
        assert first["summary_method"] == "llm"
        assert SUMMARY_PREFIX in first["summary"]
        asked = fake.requests_to("/v1/chat/completions")[0].body["messages"][0]["content"]
        assert "user: Let us work on the ledger migration." in asked
        assert second["summary_method"] == "extractive"
        assert "onboarding guide is done" in second["summary"]
