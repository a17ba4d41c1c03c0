"""The text of a span summary: its header, and an extractive body that quotes the span's most
informative sentences with their speakers. Pure, but for the token counting it is given.

Extractive: each message's salient sentence (the one whose content words are most frequent in
the span) is a candidate line `role: sentence`; the best lines by that weight are kept while
they fit the depth's token cap, and shown in conversation order. A summary of summaries does
the same with its parts' lines, so it quotes messages too, and says which (`quoted_seqs`).
"""

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from app.providers.summarizer import SENTENCE, STOPWORDS, WORD
from app.providers.tokenizer import Tokens

# Besides the summarizer's stopwords, a conversation's fillers.
_STOPWORDS = STOPWORDS | frozenset(
    (  # noqa: SIM905 - a word list reads best as one string
        "can could did do does here how just no not now ok okay please thanks too would yes"
    ).split()
)


@dataclass(frozen=True, slots=True)
class Line:
    """A line a summary may quote: who said it, what, and the message's seq when known."""

    role: str
    text: str
    seq: int | None


@dataclass(frozen=True)
class Digest:
    """A summary's text and the seqs of the messages it quotes, in order."""

    content: str
    quoted_seqs: list[int]


def header(depth: int, messages: int, first_at: datetime, last_at: datetime) -> str:
    """Seed 001's header: `[Summary: depth 2, 45 messages, 2024-01-15 to 2024-01-16]`."""
    return (
        f"[Summary: depth {depth}, {messages:,} messages, "
        f"{first_at.date().isoformat()} to {last_at.date().isoformat()}]"
    )


def _content_words(text: str) -> list[str]:
    return [w for w in WORD.findall(text.lower()) if w not in _STOPWORDS and len(w) > 2]


def salient(role: str, content: str, seq: int | None, frequencies: Counter[str]) -> Line | None:
    """The message's sentence whose content words weigh most in the span; None when it has
    no content word (a greeting, an acknowledgement)."""
    best, best_weight = None, 0.0
    for sentence in (s.strip() for s in SENTENCE.split(content)):
        weight = _weight(sentence, frequencies)
        if weight > best_weight:
            best, best_weight = sentence, weight
    return Line(role, best, seq) if best is not None else None


def _weight(text: str, frequencies: Counter[str]) -> float:
    """Frequent content words weigh; a long sentence is not favoured for its length alone."""
    words = _content_words(text)
    return sum(frequencies[w] for w in words) / (len(words) + 4)


def extract(tokens: Tokens, lines: Sequence[Line], head: str, max_tokens: int) -> Digest:
    """The header and the best `lines` (by their content words' frequency among all of them)
    that fit `max_tokens` with it, in their order; a line too long alone is cut."""
    frequencies = Counter(w for line in lines for w in set(_content_words(line.text)))
    used = tokens.count(head)
    chosen: set[int] = set()
    ranked = sorted(
        range(len(lines)), key=lambda i: _weight(lines[i].text, frequencies), reverse=True
    )
    for index in ranked:
        cost = tokens.count(f"\n{lines[index].role}: {lines[index].text}")
        if used + cost <= max_tokens:
            chosen.add(index)
            used += cost
    picked = [lines[i] for i in sorted(chosen)]
    if not picked and lines and used < max_tokens:
        first = lines[ranked[0]]
        cut = tokens.truncate(first.text, max(max_tokens - used - 4, 1))
        picked = [Line(first.role, cut, first.seq)]
    body = "".join(f"\n{line.role}: {line.text}" for line in picked)
    return Digest(head + body, [line.seq for line in picked if line.seq is not None])


def message_lines(messages: Sequence[tuple[int, str, str]]) -> list[Line]:
    """Each message's salient line, from (seq, role, content) in order."""
    frequencies = Counter(w for _, _, content in messages for w in set(_content_words(content)))
    found = (salient(role, content, seq, frequencies) for seq, role, content in messages)
    return [line for line in found if line is not None]


def summary_lines(parts: Sequence[tuple[str, Sequence[int]]]) -> list[Line]:
    """The lines of summaries (content, quoted_seqs), headers left out: each line of an
    extractive one is `role: sentence` and quotes the seq at its place; an LLM's text is
    split into sentences, quoting none."""
    lines: list[Line] = []
    for content, seqs in parts:
        body = content.split("\n")[1:] if content.startswith("[Summary:") else [content]
        if len(body) == len(seqs):
            for text, seq in zip(body, seqs, strict=True):
                role, _, said = text.partition(": ")
                lines.append(Line(role, said, seq))
        else:
            sentences = (s.strip() for s in SENTENCE.split("\n".join(body)) if s.strip())
            lines.extend(Line("summary", s, None) for s in sentences)
    return lines


def prompt_text(lines: Sequence[tuple[str, str]]) -> str:
    """The text an LLM is asked to summarize: one `role: content` per message or part."""
    return "\n".join(f"{role}: {content}" for role, content in lines)
