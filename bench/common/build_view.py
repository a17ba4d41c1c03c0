"""What the benchmarks read of the service's responses, leniently: unknown fields are ignored
and fields a service does not have yet read as none, so the same reader measures the service of
an older commit (`--commit`) as well as this one, and one with session summaries or without."""

import uuid
from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict


def _none_as_empty(value: object) -> object:
    return [] if value is None else value


class _Read(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ItemView(_Read):
    memory_id: uuid.UUID
    kind: str  # read as text: a service that lists censors as items is read the same way
    detail: str


class LayerView(_Read):
    name: str
    used: int = 0
    items: list[ItemView] = []


class TotalsView(_Read):
    budget: int
    used: int
    encoding: str


class SummaryUsedView(_Read):
    """A summary a build placed before the kept messages; `quoted_seqs`: the messages whose
    sentences an extractive summary quotes (none when the service does not say)."""

    first_seq: int | None = None
    last_seq: int | None = None
    depth: int = 0
    tokens: int = 0
    quoted_seqs: list[int] = []


class RecalledView(_Read):
    seq: int
    tokens: int = 0


class WindowView(_Read):
    total: int = 0
    available: int = 0
    history_budget: int = 0


class HistoryView(_Read):
    """The build's `history` manifest: kept messages are the sinks, seqs [0, sinks), and those
    from `first_kept_seq` to the end of the session."""

    messages_in_session: int = 0
    fresh_tail: int = 0
    sinks: int = 0
    kept: int = 0
    evicted: int = 0
    first_kept_seq: int | None = None
    summaries: list[SummaryUsedView] = []
    recalled: list[RecalledView] = []
    recalled_tokens: int = 0
    tokens: int = 0
    window: WindowView = WindowView()
    reason: str | None = None

    def kept_seqs(self) -> list[int]:
        """The seqs of the messages sent with the build, in conversation order."""
        first = self.messages_in_session if self.first_kept_seq is None else self.first_kept_seq
        return [*range(self.sinks), *range(first, self.messages_in_session)]


class ChatMessageView(_Read):
    role: str
    content: str
    name: str | None = None
    tool_call_id: str | None = None


class BuildView(_Read):
    """The parts of a build's response that the benchmark reads."""

    context: str
    layers: list[LayerView]
    totals: TotalsView
    timings_ms: dict[str, float] = {}
    # A build without a session answers `messages: null`.
    messages: Annotated[list[ChatMessageView], BeforeValidator(_none_as_empty)] = []
    history: HistoryView | None = None


class SessionSummaryView(_Read):
    depth: int = 0
    messages: int = 0


class SessionView(_Read):
    """`GET /agents/{a}/sessions/{s}`: its size and the summaries made so far (none when the
    service makes none)."""

    messages: int = 0
    tokens: int = 0
    summaries: list[SessionSummaryView] = []


class StoredMessageView(_Read):
    seq: int


class AppendView(_Read):
    """The answer to an append: the messages as stored, with their seqs."""

    messages: list[StoredMessageView]
