"""What a build with a session sent, recounted here, and which of the session's messages reached
the model: kept, recalled into the context, or quoted by a summary. Pure."""

from collections.abc import Sequence
from dataclasses import dataclass

from app.providers.tokenizer import ENCODINGS, EncodingName, TokenCounter
from bench.common.build_view import BuildView, ChatMessageView, HistoryView
from bench.conversation.results import SessionBuild

# OpenAI's count of a chat request for gpt-4o-family models (cookbook "How to count tokens with
# tiktoken"): 3 per message, 1 more with a name, 3 for the reply's priming.
_PER_MESSAGE = 3
_PER_NAME = 1
_PRIMING = 3


# How the service marks a span summary among the messages, and a message shown by its own.
SPAN_SUMMARY = "[Summary: "
SHORT_FORM = "[Summarized: "


def encoding_of(built: BuildView) -> EncodingName | None:
    """The encoding the build counted in (`totals.encoding`), when it is one of ours."""
    return next((e for e in ENCODINGS if e == built.totals.encoding), None)


def chat_request_tokens(
    counter: TokenCounter, messages: Sequence[ChatMessageView], encoding: EncodingName | None
) -> int:
    """The messages as a chat request counts them, counted here on its own (tool_call_id by its
    tokens too, as the service counts it)."""
    if not messages:
        return 0
    total = _PRIMING
    for message in messages:
        total += _PER_MESSAGE + counter.count(message.role, encoding)
        total += counter.count(message.content, encoding)
        if message.name is not None:
            total += counter.count(message.name, encoding) + _PER_NAME
        if message.tool_call_id is not None:
            total += counter.count(message.tool_call_id, encoding)
    return total


def recount(counter: TokenCounter, built: BuildView) -> int:
    """The context's text and the messages sent, recounted in the build's encoding."""
    encoding = encoding_of(built)
    return counter.count(built.context, encoding) + chat_request_tokens(
        counter, built.messages, encoding
    )


def sent_tokens(built: BuildView) -> tuple[int, int]:
    """(context, history) as the build accounts them: `totals.used` (the memory layers), Past
    Learnings' layer (`learnings`, outside `totals`), the recalled section's
    `history.recalled_tokens`, and `history.tokens`."""
    history = built.history or HistoryView()
    learned = sum(layer.used for layer in built.layers if layer.name == "learnings")
    return built.totals.used + learned + history.recalled_tokens, history.tokens


@dataclass(frozen=True)
class Reached:
    """Seqs of the session that reached the model, by the way they came."""

    kept: frozenset[int]
    recalled: frozenset[int]
    quoted: frozenset[int]

    def all(self) -> frozenset[int]:
        return self.kept | self.recalled | self.quoted


def reached(history: HistoryView) -> Reached:
    """The kept messages (sinks and everything from `first_kept_seq` on), the recalled ones and
    those the summaries used quote (none when a summary does not say which)."""
    return Reached(
        kept=frozenset(history.kept_seqs()),
        recalled=frozenset(r.seq for r in history.recalled),
        quoted=frozenset(seq for s in history.summaries for seq in s.quoted_seqs),
    )


def manifest_agrees(
    history: HistoryView, messages: Sequence[ChatMessageView], contents: Sequence[str]
) -> bool:
    """Whether the kept seqs the manifest implies are exactly the messages sent besides the
    span summaries: as many as `history.kept`, with the contents of those seqs (or a message's
    own summary in its place, under pressure), in order."""
    seqs = history.kept_seqs()
    sent = [m for m in messages if not m.content.startswith(SPAN_SUMMARY)]
    if len(seqs) != history.kept or len(seqs) != len(sent):
        return False
    return all(
        0 <= seq < len(contents)
        and (contents[seq] == message.content or message.content.startswith(SHORT_FORM))
        for seq, message in zip(seqs, sent, strict=True)
    )


def session_build(counter: TokenCounter, built: BuildView, client_ms: float) -> SessionBuild:
    """A build with a session as the benchmarks record it (a build without `history` reads
    as an empty one)."""
    history = built.history or HistoryView()
    context, history_tokens = sent_tokens(built)
    return SessionBuild(
        messages=history.messages_in_session,
        context=context,
        history=history_tokens,
        recount=recount(counter, built),
        server_ms=round(built.timings_ms.get("total", 0.0), 2),
        client_ms=round(client_ms, 2),
        kept=history.kept,
        recalled=len(history.recalled),
        summaries=len(history.summaries),
        pressure=history.reason is not None,
        stages_ms={k: v for k, v in built.timings_ms.items() if k != "total"},
    )
