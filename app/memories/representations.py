"""The three sizes of a memory: micro (one line), summary and full, rendered from its fields."""

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from pydantic import JsonValue

from app.providers.summarizer import ExtractiveSummarizer
from app.providers.tokenizer import TokenCounter

MICRO_MAX_TOKENS = 24
SUMMARY_MAX_TOKENS = 100

Fields = Mapping[str, JsonValue]
SummarySource = Literal["template", "extractive", "llm", "author"]


@dataclass(frozen=True)
class Rendered:
    """The three representations and where the summary came from."""

    micro: str
    summary: str
    full: str
    summary_source: SummarySource
    wants_llm_summary: bool
    anchors: tuple[str, ...] = ()  # of the full text (`app.providers.anchors`), by `render_all`


def _text(fields: Fields, key: str) -> str:
    value = fields.get(key)
    return value.strip() if isinstance(value, str) else ""


def _items(fields: Fields, key: str) -> list[str]:
    value = fields.get(key)
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _number(fields: Fields, key: str) -> float | None:
    value = fields.get(key)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _sentence(text: str) -> str:
    return text if text.endswith((".", "!", "?")) else text + "."


def _decision(fields: Fields) -> tuple[str, str, str]:
    """Micro: the decision, its outcome and confidence; summary: the same line with its main
    reason quoted, as a context lists it; full: everything."""
    decision = _text(fields, "decision")
    outcome = _text(fields, "outcome") or "pending"
    confidence = _number(fields, "confidence") or 0.0
    reasons, alternatives = _items(fields, "reasons"), _items(fields, "alternatives")
    notes = _text(fields, "outcome_notes")
    micro = f"{decision} [{outcome}, {confidence:.2f}]"
    main_reason = reasons[0].strip() if reasons else notes
    summary = micro + (f' — "{main_reason}"' if main_reason else "")
    full_lines = [f"Decision: {_sentence(decision)}"]
    if context := _text(fields, "context"):
        full_lines.append(f"Context: {context}")
    if reasons:
        full_lines.append("Reasons:\n" + "\n".join(f"- {r}" for r in reasons))
    if alternatives:
        full_lines.append("Alternatives considered:\n" + "\n".join(f"- {a}" for a in alternatives))
    full_lines.append(f"Confidence: {confidence:.2f}")
    full_lines.append(f"Outcome: {outcome}" + (f" — {notes}" if notes else ""))
    return micro, summary, "\n".join(full_lines)


def _fact(fields: Fields) -> tuple[str, str, str]:
    content = _text(fields, "content")
    return content, content, content


def _procedure(fields: Fields) -> tuple[str, str, str]:
    """Micro: the name and its steps; summary: the description and the core patterns (a
    context shows it under `## Procedure: <name>`); full: everything."""
    name, description = _text(fields, "name"), _text(fields, "description")
    steps, patterns = _items(fields, "steps"), _items(fields, "core_patterns")
    micro = f"{name}: " + (" → ".join(steps) if steps else description)
    if patterns:
        summary = "Core patterns:\n" + "\n".join(f"- {p}" for p in patterns)
    elif steps:
        summary = "Steps: " + " → ".join(steps)
    else:
        summary = description
    full_lines = [f"Procedure: {name}", description]
    if domain := _text(fields, "domain"):
        full_lines.append(f"Domain: {domain}")
    if steps:
        full_lines.append("Steps:\n" + "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1)))
    if patterns:
        full_lines.append("Core patterns:\n" + "\n".join(f"- {p}" for p in patterns))
    return micro, summary, "\n".join(full_lines)


def _censor(fields: Fields) -> tuple[str, str, str]:
    action = (_text(fields, "action") or "warn").upper()
    line = f"{action}: {_text(fields, 'trigger_pattern')} — {_text(fields, 'reason')}"
    full = line + (f"\nDomain: {domain}" if (domain := _text(fields, "domain")) else "")
    return line, line, full


def duration(fields: Fields) -> str | None:
    """How long an episode lasted, from its start and end: "45 min", "2h", "3 days"."""
    try:
        started = datetime.fromisoformat(_text(fields, "started_at"))
        ended = datetime.fromisoformat(_text(fields, "ended_at"))
        minutes = (ended - started).total_seconds() / 60
    except (ValueError, TypeError):  # either missing, or one naive and one aware
        return None
    if minutes <= 0:
        return None
    if minutes < 60:
        return f"{round(minutes)} min"
    if minutes < 48 * 60:
        return f"{round(minutes / 30) / 2:g}h"
    return f"{round(minutes / 1440)} days"


def episode_head(fields: Fields) -> str:
    """The title with how long it took and who took part: "Storage discussion (2h, with Tim)"."""
    title = _text(fields, "title")
    about = [part for part in (duration(fields),) if part]
    if participants := _items(fields, "participants"):
        about.append("with " + ", ".join(participants))
    if about and not title.endswith(")"):
        return f"{title} ({', '.join(about)})".strip()
    return title


def _episode(fields: Fields) -> tuple[str, str, str]:
    title, detail = _text(fields, "title"), _text(fields, "detail")
    participants = _items(fields, "participants")
    full = "\n".join(
        part
        for part in (
            title,
            f"Participants: {', '.join(participants)}" if participants else "",
            detail,
        )
        if part
    )
    micro = episode_head(fields) or detail.split("\n", 1)[0]
    return micro, _text(fields, "summary"), full


_TEMPLATES: dict[str, Callable[[Fields], tuple[str, str, str]]] = {
    "decision": _decision,
    "fact": _fact,
    "procedure": _procedure,
    "censor": _censor,
    "episode": _episode,
}


def _episode_summary(
    fields: Fields, given: str, tokens: TokenCounter, summarizer: ExtractiveSummarizer
) -> tuple[str, SummarySource]:
    """The head line, then the author's summary or the detail's own sentences: the title is
    never merged into the text it introduces."""
    head = episode_head(fields)
    room = SUMMARY_MAX_TOKENS - (tokens.count(head) + 2 if head else 0)
    source: SummarySource = "author"
    body = given
    if not body or tokens.count(body) > room:
        body = summarizer.summarize(_text(fields, "detail"), max(room, MICRO_MAX_TOKENS))
        source = "extractive"
    return (f"{head} — {body}" if head else body), source


def render(
    kind: str, fields: Fields, tokens: TokenCounter, summarizer: ExtractiveSummarizer
) -> Rendered:
    """Render a memory's micro, summary and full text; no model is called here."""
    micro, summary, full = _TEMPLATES[kind](fields)
    micro = tokens.truncate(" ".join(micro.split()), MICRO_MAX_TOKENS)
    source: SummarySource = "template"
    if kind == "episode":
        summary, source = _episode_summary(fields, summary, tokens, summarizer)
    if tokens.count(summary) > SUMMARY_MAX_TOKENS:
        summary = summarizer.summarize(full, SUMMARY_MAX_TOKENS)
        source = "extractive"
    # An LLM can do better than sentence extraction whenever the full text did not fit.
    wants_llm = source == "extractive" and summary != full
    return Rendered(micro, summary, full, source, wants_llm)
