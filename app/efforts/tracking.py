"""What an append does to a session's efforts: its messages go to the open effort, its user
messages advance the session's turn, the efforts they refer to are referenced at that turn, and
expanded efforts that went `expanded_decay_turns` turns without a reference collapse.

A message refers to a concluded or expanded effort when it names its id (`e_4`, any message
but a system one) or, for a user's or the assistant's, holds `reference_keywords` of its keywords
(seed 002: "the effort ID, or 2+ keywords from the summary").
"""

import uuid
from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.context_config import EffortSettings
from app.efforts.repository import EffortRepository
from app.sessions.models import ConversationSession, SessionMessage
from app.sessions.repository import SessionRepository

_SAID = ("user", "assistant")


async def on_append(
    session: AsyncSession,
    conversation: ConversationSession,
    messages: Sequence[SessionMessage],
    settings: EffortSettings,
) -> None:
    """Before the messages are stored, under the session's lock."""
    conversation.turns += sum(1 for m in messages if m.role == "user")
    repository = EffortRepository(session)
    open_id, others = await repository.census(conversation.id)
    for message in messages:
        message.effort_id = open_id
    if others:
        await refer(repository, conversation, [(m.role, m.content) for m in messages], settings)
        await repository.collapse(
            conversation.id, conversation.turns, settings.expanded_decay_turns
        )


async def refer(
    repository: EffortRepository,
    conversation: ConversationSession,
    said: Sequence[tuple[str, str]],
    settings: EffortSettings,
) -> int:
    """Reference, at the session's turn, the efforts these (role, text) refer to; how many."""
    named = [text for role, text in said if role != "system"]
    spoken = [text for role, text in said if role in _SAID]
    if not named:
        return 0
    found = await repository.referenced(conversation.id, named, spoken, settings.reference_keywords)
    await repository.touch(found, conversation.turns)
    return len(found)


async def refer_in_reply(
    session: AsyncSession,
    agent_id: uuid.UUID,
    session_name: str,
    reply: str,
    settings: EffortSettings,
) -> int:
    """Feedback on a build with a session: the efforts the LLM's reply refers to are referenced
    at the session's turn; how many."""
    conversation = await SessionRepository(session).get(agent_id, session_name)
    if conversation is None:
        return 0
    return await refer(EffortRepository(session), conversation, [("assistant", reply)], settings)
