"""What the session page shows, worked out from the session, its latest messages and efforts,
and the history manifest of the latest build made with it: pure, no I/O."""

from dataclasses import dataclass

from app.context.history.schemas import HistoryRead
from app.efforts.schemas import EffortRead
from app.sessions.schemas import MessageRead, SessionRead

# Characters of a message the page shows (the rest: its seq in GET …/messages).
SHOWN_CHARACTERS = 400


@dataclass(frozen=True)
class MessageRow:
    seq: int
    role: str
    tokens: int
    text: str
    fate: str  # in the latest build: sink, kept, recalled, summarized, evicted (or "")


@dataclass(frozen=True)
class SessionPage:
    session: SessionRead
    build_id: str | None  # the latest build with the session
    history: HistoryRead | None  # its history manifest
    messages: list[MessageRow]
    first_shown: int  # seq of the first message listed (the latest ones are)
    efforts: list[EffortRead]


def fate(history: HistoryRead | None, seq: int) -> str:
    """What the latest build did with message `seq`."""
    if history is None:
        return ""
    if seq >= history.messages_in_session:
        return "after the build"
    if seq < history.sinks:
        return "sink"
    if history.efforts is not None:  # chosen from working memory, not as one tail
        return "by its effort (below)"
    if seq in history.shown_by_summary:
        return "kept as its summary"
    if history.first_kept_seq is not None and seq >= history.first_kept_seq:
        return "kept"
    if any(r.seq == seq for r in history.recalled):
        return "recalled"
    if any(s.first_seq <= seq <= s.last_seq for s in history.summaries):
        return "summarized"
    return "evicted"


def session_view(
    session: SessionRead,
    messages: list[MessageRead],
    efforts: list[EffortRead],
    build_id: str | None,
    history: HistoryRead | None,
) -> SessionPage:
    """The page: each listed message with its fate in the latest build (`build_id`)."""
    rows = [
        MessageRow(m.seq, m.role, m.tokens, _shown(m.content), fate(history, m.seq))
        for m in messages
    ]
    first = messages[0].seq if messages else 0
    return SessionPage(session, build_id, history, rows, first, efforts)


def _shown(text: str) -> str:
    return text if len(text) <= SHOWN_CHARACTERS else text[:SHOWN_CHARACTERS] + " …"
