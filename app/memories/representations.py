"""The three sizes of a memory: micro (one line), summary and full, rendered from its fields."""

from collections.abc import Callable, Mapping
from dataclasses import dataclass
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
    decision = _text(fields, "decision")
    outcome = _text(fields, "outcome") or "pending"
    confidence = _number(fields, "confidence") or 0.0
    reasons, alternatives = _items(fields, "reasons"), _items(fields, "alternatives")
    notes = _text(fields, "outcome_notes")
    micro = f"{decision} [{outcome}, {confidence:.2f}]"
    summary_lines = [f"Decision: {_sentence(decision)}"]
    if reasons:
        summary_lines.append("Reasons: " + " ".join(_sentence(r) for r in reasons))
    if alternatives:
        summary_lines.append("Alternatives: " + "; ".join(alternatives) + ".")
    outcome_line = f"Outcome: {outcome.capitalize()}, confidence {confidence:.2f}."
    summary_lines.append(outcome_line + (f" {_sentence(notes)}" if notes else ""))
    full_lines = [f"Decision: {_sentence(decision)}"]
    if context := _text(fields, "context"):
        full_lines.append(f"Context: {context}")
    if reasons:
        full_lines.append("Reasons:\n" + "\n".join(f"- {r}" for r in reasons))
    if alternatives:
        full_lines.append("Alternatives considered:\n" + "\n".join(f"- {a}" for a in alternatives))
    full_lines.append(f"Confidence: {confidence:.2f}")
    full_lines.append(f"Outcome: {outcome}" + (f" — {notes}" if notes else ""))
    return micro, "\n".join(summary_lines), "\n".join(full_lines)


def _fact(fields: Fields) -> tuple[str, str, str]:
    content = _text(fields, "content")
    return content, content, content


def _procedure(fields: Fields) -> tuple[str, str, str]:
    name, description = _text(fields, "name"), _text(fields, "description")
    steps, patterns = _items(fields, "steps"), _items(fields, "core_patterns")
    micro = f"{name}: " + (" → ".join(steps) if steps else description)
    summary = f"{name}: {description}"
    if patterns:
        summary += "\nCore patterns:\n" + "\n".join(f"- {p}" for p in patterns)
    elif steps:
        summary += "\nSteps: " + " → ".join(steps)
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
    micro = title or detail.split("\n", 1)[0]
    return micro, _text(fields, "summary"), full


_TEMPLATES: dict[str, Callable[[Fields], tuple[str, str, str]]] = {
    "decision": _decision,
    "fact": _fact,
    "procedure": _procedure,
    "censor": _censor,
    "episode": _episode,
}


def render(
    kind: str, fields: Fields, tokens: TokenCounter, summarizer: ExtractiveSummarizer
) -> Rendered:
    """Render a memory's micro, summary and full text; no model is called here."""
    micro, summary, full = _TEMPLATES[kind](fields)
    micro = tokens.truncate(" ".join(micro.split()), MICRO_MAX_TOKENS)
    source: SummarySource = "template"
    if kind == "episode":
        source = "author" if summary else "extractive"
    if not summary or tokens.count(summary) > SUMMARY_MAX_TOKENS:
        summary = summarizer.summarize(full, SUMMARY_MAX_TOKENS)
        source = "extractive"
    # An LLM can do better than sentence extraction whenever the full text did not fit.
    wants_llm = source == "extractive" and summary != full
    return Rendered(micro, summary, full, source, wants_llm)
