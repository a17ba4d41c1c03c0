"""A build's history as its response carries it: the manifest's `history` (what was kept,
evicted, summarized and recalled, and how the window was shared) and `messages`, the kept
messages in the OpenAI chat format with the summaries after the sinks."""

from app.context.history.conversation import History
from app.context.history.summaries import as_message
from app.context.history.window import available


def history_read(found: History, memory_budget: int, learnings_budget: int) -> dict[str, object]:
    """The manifest's `history`, as plain data."""
    choice, window = found.choice, found.window
    evictable = [m.seq for m in choice.kept[choice.sinks : len(choice.kept) - choice.fresh_tail]]
    tail = [m.seq for m in choice.kept[len(choice.kept) - choice.fresh_tail :]]
    after_sinks = evictable or tail
    return {
        "session_id": found.session_id,
        "messages_in_session": found.in_session,
        "fresh_tail": choice.fresh_tail,
        "sinks": choice.sinks,
        "kept": len(choice.kept),
        "evicted": found.in_session - len(choice.kept),
        "first_kept_seq": after_sinks[0] if after_sinks else None,
        "summaries": [
            {
                "first_seq": summary.first_seq,
                "last_seq": summary.last_seq,
                "depth": summary.depth,
                "messages": summary.messages,
                "tokens": cost,
                "quoted_seqs": list(summary.quoted_seqs),
            }
            for summary, cost in zip(found.summaries, found.summary_tokens, strict=True)
        ],
        "recalled": [
            {
                "seq": hit.message.seq,
                "role": hit.message.role,
                "tokens": line,
                "score": round(hit.score, 4),
                "by": hit.by,
                "similarity": None if hit.similarity is None else round(hit.similarity, 4),
            }
            for hit, line in zip(found.recall.hits, found.recall.line_tokens, strict=True)
        ],
        "recalled_tokens": found.recall.added,
        "shown_by_summary": [
            m.seq for m in choice.kept if found.short.get(m.seq, None) == m.content
        ],
        "tokens": found.tokens,
        "efforts": found.efforts,
        "window": window.model_dump()
        | {
            "available": available(window),
            "memory_budget": memory_budget,
            "learnings_budget": learnings_budget,
            "history_budget": found.budget,
        },
        "reason": choice.reason,
    }


def chat_messages(found: History) -> list[dict[str, object]]:
    """The kept messages in the OpenAI chat format, the summaries after the sinks; `name` and
    `tool_call_id` only where a message has them (as `ChatMessageRead` writes them)."""
    kept, sinks = found.choice.kept, found.choice.sinks
    summaries = [as_message(summary) for summary in found.summaries]
    messages: list[dict[str, object]] = []
    for m in (*kept[:sinks], *summaries, *kept[sinks:]):
        message: dict[str, object] = {"role": m.role, "content": m.content}
        if m.name is not None:
            message["name"] = m.name
        if m.tool_call_id is not None:
            message["tool_call_id"] = m.tool_call_id
        messages.append(message)
    return messages
