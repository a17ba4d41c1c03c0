"""SQL of a build's history: its session and the messages a selection can use, as text (a
textual statement costs about half of what the same select() does; bench/README.md, "Fewer
statements per build"). A build with a session usually reads both in one round trip."""

import uuid
from dataclasses import dataclass
from typing import NamedTuple

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

# A message's least cost in stored tokens, as a history selection reckons it
# (`app.context.history.choice.least_cost`): 4 for its overhead, and its content's, but for a
# long assistant or tool message (more than :long stored tokens; 0: none is long), which may
# come as its own summary.
_LEAST = (
    "4 + CASE WHEN :long > 0 AND m.role IN ('assistant', 'tool') AND m.tokens > :long "
    "THEN 0 ELSE m.tokens END"
)
# A message as a selection reads it: its content only while the least costs of the newer ones
# (:spent of them read before) stay within :within, or when `{whole}` (a long session's old
# messages are costed before they are read whole, as a selection reaches them); a long
# assistant or tool message with its own summary (depth 0), where one was made.
_MESSAGE = (
    "m.seq, m.role, CASE WHEN {whole} OR CAST(:within AS bigint) IS NULL OR CAST(:spent AS "
    f"bigint) + sum({_LEAST}) OVER (ORDER BY m.seq DESC) - ({_LEAST}) <= :within "
    "THEN m.content END AS content, m.name, m.tool_call_id, m.tokens, "
    "CASE WHEN :long > 0 AND m.role IN ('assistant', 'tool') AND m.tokens > :long THEN "
    "(SELECT u.content FROM session_summary u WHERE u.session_id = m.session_id "
    "AND u.depth = 0 AND u.first_seq = m.seq) END AS short"
)
_HAD_EFFORTS = "EXISTS (SELECT 1 FROM session_effort e WHERE e.session_id = s.id)"
# The agent's session, whether it ever had an effort, and, unless it had one (its history is
# its working memory's), its first :first messages and its last :last, the sinks and the last
# :fresh_tail whole.
_OPENING = text(
    f"SELECT s.id, s.name, s.message_count, s.token_count, s.turns, {_HAD_EFFORTS}, p.* "
    "FROM conversation_session s LEFT JOIN LATERAL (SELECT "
    + _MESSAGE.format(whole="m.seq < :first OR m.seq >= s.message_count - :fresh_tail")
    + f" FROM session_message m WHERE m.session_id = s.id AND NOT {_HAD_EFFORTS} "
    "AND (m.seq < :first OR m.seq >= s.message_count - :last)) p ON true "
    "WHERE s.agent_id = :agent AND s.name = :name ORDER BY p.seq"
)
# The session's messages from seq :from_seq to before :before.
_MESSAGES = text(
    f"SELECT {_MESSAGE.format(whole='false')} FROM session_message m "
    "WHERE m.session_id = :session AND m.seq >= :from_seq AND m.seq < :before ORDER BY m.seq"
)


@dataclass(frozen=True)
class Reach:
    """How far back from its newest a read brings messages whole: while the least costs of
    the newer ones (`spent` on those read before) stay within `within` stored tokens; None:
    every one. Each message's cost is read whatever its content's size."""

    within: int | None = None
    spent: int = 0


@dataclass(frozen=True, slots=True)
class StoredCost:
    """What is known of a message before it is read: its place, role and the tokens of its
    content as stored (counted in the default encoding when it was appended)."""

    seq: int
    role: str
    tokens: int


class ReadMessage(NamedTuple):
    """A message as a history selection reads it, with its stored token count; its content
    None when it lay beyond the read's `Reach`."""

    seq: int
    role: str
    content: str | None
    name: str | None
    tool_call_id: str | None
    tokens: int
    short: str | None = None  # a long assistant or tool message's own summary, where made

    def cost(self) -> StoredCost:
        return StoredCost(self.seq, self.role, self.tokens)


@dataclass(frozen=True)
class SessionState:
    """What a build reads of its session's row."""

    id: uuid.UUID
    name: str
    message_count: int
    token_count: int
    turns: int  # its user messages (efforts age by them)
    had_efforts: bool


@dataclass(frozen=True)
class Opening:
    """A session as a build first reads it: its row, and (unless it had efforts) its first
    `first` messages and every one from seq `tail_from` on, in seq order."""

    session: SessionState
    messages: list[ReadMessage]
    tail_from: int


class HistoryRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def opening(
        self,
        agent_id: uuid.UUID,
        name: str,
        *,
        first: int,
        fresh_tail: int,
        last: int,
        reach: Reach,
        long: int,
    ) -> Opening | None:
        """The agent's session `name` with its `first` and its `last` messages, those within
        `reach` whole, and the first and the last `fresh_tail` whatever their size (see
        `_MESSAGE` for `long`), in one statement; None when it has none."""
        bound = {
            "agent": agent_id, "name": name, "first": first, "last": last, "long": long,
            "fresh_tail": fresh_tail, "within": reach.within, "spent": reach.spent,
        }  # fmt: skip
        rows = (await self.session.execute(_OPENING, bound)).all()
        if not rows:
            return None
        state = SessionState(*rows[0][:6])
        messages = [ReadMessage(*row[6:]) for row in rows if row[6] is not None]
        count = state.message_count
        return Opening(state, messages, count if state.had_efforts else max(count - last, 0))

    async def messages(
        self, session_id: uuid.UUID, from_seq: int, *, before: int, long: int, reach: Reach
    ) -> list[ReadMessage]:
        """The session's messages from seq `from_seq` to before `before`, in seq order."""
        bound = {
            "session": session_id, "from_seq": from_seq, "before": before, "long": long,
            "within": reach.within, "spent": reach.spent,
        }  # fmt: skip
        return [ReadMessage(*row) for row in await self.session.execute(_MESSAGES, bound)]
