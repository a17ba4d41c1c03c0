"""Bodies of a build with a session: the window asked for, and the history returned."""

from typing import Literal

from pydantic import BaseModel, Field

from app.core.context_config import WindowSettings
from app.efforts.schemas import EffortsUsed
from app.sessions.schemas import Role


def _absent(value: object) -> bool:
    return value is None


class ChatMessageRead(BaseModel):
    """A message of the history to send, in the OpenAI chat format (`name` and
    `tool_call_id` only when the message has them)."""

    role: Role
    content: str
    name: str | None = Field(default=None, exclude_if=_absent)
    tool_call_id: str | None = Field(default=None, exclude_if=_absent)


class WindowRead(WindowSettings):
    """The window the build used (the request's fields over the agent's defaults over the
    settings), and how `available` was shared: the promise is `totals.used + the learnings
    layer's used + history.recalled_tokens + history.tokens <= available`, the first three
    being the tokens of `context`."""

    available: int = Field(description="total - system_reserve - tools_reserve.")
    memory_budget: int = Field(description="The memory layers' budget (totals.budget).")
    learnings_budget: int = Field(
        default=0,
        description="Past Learnings' budget: learnings_fraction of available, within what "
        "memory_budget leaves (the `learnings` layer's budget). 0 in builds stored before.",
    )
    history_budget: int = Field(
        description="available - the tokens of `context`: what the history got, with what the "
        "memory layers and Past Learnings did not use."
    )


class SummaryUsed(BaseModel):
    """A summary placed before the kept messages, after the sinks, as a system message: it
    stands for the evicted ones from `first_seq` to `last_seq` (depth 1: of messages, 2: of
    summaries, …)."""

    first_seq: int
    last_seq: int
    depth: int
    messages: int = Field(description="Messages it covers.")
    tokens: int = Field(description="What it adds to `messages`: its chat message's tokens.")
    quoted_seqs: list[int] = Field(
        description="The messages whose sentences it quotes; empty for an LLM's summary."
    )


class RecalledMessage(BaseModel):
    """An evicted message brought back into `context`, under "Earlier in this conversation",
    because it holds at least two of the input's words (its only one, when it has one), or
    its meaning is close to the input's (CE_CONTEXT__RECALL_MIN_SIMILARITY)."""

    seq: int
    role: Role
    tokens: int = Field(description="Of its line in `context`, newline included.")
    score: float = Field(
        description="Its rank among the messages found: 1/(60 + rank) by its words' ts_rank "
        "plus 1/(60 + rank) by its similarity, for each way it was found."
    )
    # Defaults: builds stored before recall by meaning found by words alone.
    by: Literal["words", "meaning", "both"] = Field(
        default="words", description="How it was found."
    )
    similarity: float | None = Field(
        default=None,
        description="Cosine similarity of its vector to the input's; null while it has no "
        "vector (embedded in the background) or the build has none (the embedder did not "
        "answer in time).",
    )


class HistoryRead(BaseModel):
    """Which of the session's messages came with the context, and why the others did not."""

    session_id: str
    messages_in_session: int
    fresh_tail: int = Field(description="Messages kept as the fresh tail.")
    sinks: int = Field(description="Messages kept as attention sinks (the first ones).")
    kept: int = Field(
        description="Messages of the session in `messages`: sinks, evictable ones, fresh tail "
        "(summaries besides)."
    )
    evicted: int
    first_kept_seq: int | None = Field(
        description="seq of the oldest message kept after the sinks; null when none is."
    )
    summaries: list[SummaryUsed] = Field(
        description="In conversation order: the coarsest summaries of evicted messages before "
        "the first kept one, newest first while they fit (a share of the history's budget is "
        "kept for them; what they leave goes back to the evictable messages)."
    )
    recalled: list[RecalledMessage] = Field(description="In conversation order.")
    recalled_tokens: int = Field(
        description="What the recalled section added to `context`: its tokens less "
        "totals.used (the memory layers') and the learnings layer's used."
    )
    shown_by_summary: list[int] = Field(
        default_factory=list,
        description="seqs of the long assistant and tool messages shown by their own summary "
        "(`[Summarized: n tokens] …`) because they did not fit whole; user messages never are.",
    )
    tokens: int = Field(
        description="Of `messages` as a chat request counts them in the target model's "
        "encoding: 3 per message, its role, content, name (+1) and tool_call_id, and 3 for "
        "the reply's priming."
    )
    efforts: EffortsUsed | None = Field(
        default=None,
        exclude_if=_absent,
        description="With a session that has efforts: how each was shown; the history is "
        "then chosen from its working memory (see GET .../efforts). Absent without efforts.",
    )
    window: WindowRead
    reason: str | None = Field(
        default=None,
        description="Why sinks or fresh tail had to go, when they did: they did not fit.",
    )
