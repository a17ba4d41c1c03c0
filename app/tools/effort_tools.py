"""The effort tools: expand_effort (a concluded effort's messages back into working memory, and
in the result) and effort_status (a session's efforts, or one). What they show of an effort is
a reference to it at the session's turn (`count_references`, through efforts' `reference`)."""

import contextlib
import uuid
from collections.abc import Sequence
from typing import Annotated

from pydantic import Field

from app.core.errors import Conflict, NotFound
from app.core.fields import RequestBody
from app.efforts import service
from app.efforts.models import SessionEffort
from app.efforts.repository import EffortRepository
from app.efforts.schemas import EFFORT_ID_PATTERN, EffortRead
from app.sessions.models import ConversationSession
from app.sessions.repository import SessionRepository
from app.sessions.schemas import SESSION_NAME_PATTERN, MessageRead
from app.tools.types import Item, Reference, Section, ToolCall, ToolOutput

EXPAND_DESCRIPTION = (
    "Load one of the conversation's efforts (a finished piece of work, e.g. e_4, as "
    "search_memory, effort_status or the context's efforts list name it) back into your "
    "context: its messages return raw for the next turns, and this result shows them. Use it "
    "when an effort's summary is not enough to answer."
)
STATUS_DESCRIPTION = (
    "The conversation's efforts (pieces of work), newest first, with their state, title, "
    "summary and the turn each was last referenced; with effort_id, that one only."
)
SessionId = Annotated[str, Field(pattern=SESSION_NAME_PATTERN)]
EffortId = Annotated[str, Field(pattern=EFFORT_ID_PATTERN)]
_SESSION = "The current conversation's session id."


class ExpandEffortArguments(RequestBody):
    """expand_effort's arguments."""

    session_id: SessionId = Field(description=_SESSION)
    effort_id: EffortId = Field(description="The effort's id: e_1, e_2, …")


class EffortStatusArguments(RequestBody):
    """effort_status's arguments."""

    session_id: SessionId = Field(description=_SESSION)
    effort_id: EffortId | None = Field(
        default=None, description="One effort's id (e_1, e_2, …); every effort when left out."
    )


def _missing(field: str, detail: str) -> NotFound:
    return NotFound(detail, errors=[{"loc": ["body", "arguments", field], "msg": detail}])


async def conversation_of(call: ToolCall, session_id: str) -> ConversationSession:
    """The agent's session; 404 naming `session_id` when it has none of that name."""
    found = await SessionRepository(call.session).get(call.agent.id, session_id)
    if found is None:
        raise _missing("session_id", f"Agent '{call.agent.name}' has no session '{session_id}'.")
    return found


async def _effort(call: ToolCall, session_id: str, effort_id: str) -> SessionEffort:
    """The session's effort; 404 naming the argument at fault."""
    conversation = await conversation_of(call, session_id)
    number = int(effort_id.removeprefix("e_"))
    found = await EffortRepository(call.session).get(conversation.id, number)
    if found is None:
        detail = f"Session '{session_id}' has no effort '{effort_id}'; effort_status lists them."
        raise _missing("effort_id", detail)
    return found


def effort_line(read: EffortRead) -> str:
    """An effort's entry: id, title, state, whether a build shows it, last reference, summary."""
    shown = "in context" if read.in_working_memory else "not in context"
    summary = read.summary or "(no summary yet)"
    return (
        f"- [effort {read.effort_id}] {read.title}: {read.state}, {shown}, last referenced at "
        f"turn {read.last_referenced_turn}, {read.messages} messages. {summary}"
    )


def _message_line(message: MessageRead) -> str:
    return f"- [message seq {message.seq}] {message.role}: {message.content}"


async def expand_effort(call: ToolCall, arguments: ExpandEffortArguments) -> ToolOutput:
    """Expand a concluded effort (an expanded or open one is raw already) and show its
    messages, in conversation order; 404 for an unknown session or effort."""
    effort = await _effort(call, arguments.session_id, arguments.effort_id)
    where = service.Where(call.agent.name, arguments.session_id)
    settings = call.engine.settings.efforts
    expanded = None
    if effort.state == "concluded":
        with contextlib.suppress(Conflict):  # expanded by a call just before: raw already
            expanded = await service.expand_effort(
                call.session, call.tenant, where, arguments.effort_id, settings
            )
    if expanded is not None:
        read, messages = expanded.effort, expanded.messages
        decay = settings.expanded_decay_turns
        said = f"expanded: its messages are in your context until {decay} turns pass unreferenced"
    else:
        read = await service.effort_status(
            call.session, call.tenant, where, arguments.effort_id, settings
        )
        rows = await EffortRepository(call.session).messages_of(effort.id)
        messages = [MessageRead.model_validate(m, from_attributes=True) for m in rows]
        said = f"{read.state}: its messages are in your context already"
    head = Item(f"Summary: {read.summary or '(none yet)'}", Reference("effort", effort.id))
    items = [head, *(Item(_message_line(m), Reference("message", m.id)) for m in messages)]
    title = f"[effort {read.effort_id}] {read.title} ({said}):"
    return ToolOutput((Section(title, tuple(items), ""),))


async def effort_status(call: ToolCall, arguments: EffortStatusArguments) -> ToolOutput:
    """One effort's status (a reference to it), or every effort's of the session (none)."""
    where = service.Where(call.agent.name, arguments.session_id)
    settings = call.engine.settings.efforts
    if arguments.effort_id is not None:
        effort = await _effort(call, arguments.session_id, arguments.effort_id)
        read = await service.effort_status(
            call.session, call.tenant, where, arguments.effort_id, settings
        )
        item = Item(effort_line(read), Reference("effort", effort.id))
        return ToolOutput((Section(f"Effort of session {arguments.session_id}:", (item,), ""),))
    await conversation_of(call, arguments.session_id)
    listed = await service.list_efforts(call.session, call.tenant, where, settings)
    # Newest first: when they do not all fit, the oldest are left out.
    items = tuple(Item(effort_line(read)) for read in reversed(listed.items))
    title = f"Efforts of session {arguments.session_id}, newest first (turn {listed.turn}):"
    empty = f"Session {arguments.session_id} has no efforts."
    return ToolOutput(
        (Section(title, items, empty),),
        "expand_effort(session_id, effort_id) loads an effort's messages back into your context.",
    )


async def count_references(call: ToolCall, effort_ids: Sequence[uuid.UUID]) -> None:
    """Each effort a result shows is referenced at its session's current turn."""
    sessions = SessionRepository(call.session)
    settings = call.engine.settings.efforts
    for effort in await EffortRepository(call.session).by_ids(effort_ids):
        conversation = await sessions.by_id(effort.session_id)
        if conversation is None or conversation.agent_id != call.agent.id:
            continue
        where = service.Where(call.agent.name, conversation.name)
        await service.reference(call.session, call.tenant, where, effort.effort_id, settings)
