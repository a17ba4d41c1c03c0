"""Summarizers: an extractive one that needs no model, and an OpenAI-compatible chat model."""

import re
from collections import Counter
from typing import Literal, Protocol

import openai

from app.core.config import LlmSettings
from app.providers.breaker import CircuitBreaker
from app.providers.errors import ProviderRejected, from_openai_error
from app.providers.openai_client import openai_client
from app.providers.tokenizer import TokenCounter

SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
WORD = re.compile(r"[a-z0-9]+")
STOPWORDS = frozenset(
    (  # noqa: SIM905 - a word list reads best as one string
        "a an and are as at be been but by for from had has have he her his i if in into is it "
        "its me my of on or our she so than that the their them then there they this to was we "
        "were what when which who will with you your"
    ).split()
)


class ExtractiveSummarizer:
    """Keeps the sentences that carry the text's most frequent content words, in order."""

    def __init__(self, tokens: TokenCounter) -> None:
        self._tokens = tokens

    def summarize(self, text: str, max_tokens: int) -> str:
        """A summary of at most `max_tokens` tokens made of the text's own sentences."""
        text = text.strip()
        if self._tokens.count(text) <= max_tokens:
            return text
        sentences = list(dict.fromkeys(s.strip() for s in SENTENCE.split(text) if s.strip()))
        if len(sentences) <= 1:
            return self._tokens.truncate(text, max_tokens)
        frequencies = Counter(
            w for w in WORD.findall(text.lower()) if w not in STOPWORDS and len(w) > 2
        )

        def weight(index: int) -> float:
            words = [w for w in WORD.findall(sentences[index].lower()) if w in frequencies]
            lead_bonus = 1.5 if index == 0 else 1.0  # the opening usually states the topic
            return lead_bonus * sum(frequencies[w] for w in words) / (len(words) + 4)

        chosen: list[int] = []
        used = 0
        for index in sorted(range(len(sentences)), key=weight, reverse=True):
            cost = self._tokens.count(sentences[index]) + 1
            if used + cost <= max_tokens:
                chosen.append(index)
                used += cost
        if not chosen:
            return self._tokens.truncate(sentences[0], max_tokens)
        return " ".join(sentences[i] for i in sorted(chosen))


Subject = Literal["memory", "conversation"]


class LlmSummarizer(Protocol):
    """Writes a short summary of a memory, or of a stretch of a conversation, with a language
    model."""

    async def summarize(self, text: str, max_tokens: int, subject: Subject = "memory") -> str: ...

    async def aclose(self) -> None: ...


_PROMPT = (
    "Summarize {subject} in at most {words} words. Keep names, numbers, dates, decisions and "
    "outcomes; drop filler. Answer with the summary only.\n\n{text}"
)
# What the model is told it reads.
_SUBJECTS: dict[Subject, str] = {
    "memory": "the following memory of an AI agent",
    "conversation": (
        "the following stretch of a conversation between a user and an AI agent (one message "
        "a line, `role: text`), saying who said, asked, decided or did what"
    ),
}


class OpenAISummarizer:
    """Summaries from any OpenAI-compatible chat completions endpoint."""

    def __init__(self, settings: LlmSettings, tokens: TokenCounter) -> None:
        assert settings.model, "OpenAISummarizer needs CE_LLM__MODEL"
        self._client = openai_client(settings.base_url, settings.api_key, settings.timeout_seconds)
        self._model = settings.model
        self._tokens = tokens

    async def aclose(self) -> None:
        """Close the HTTP connections of the client."""
        await self._client.close()

    async def summarize(self, text: str, max_tokens: int, subject: Subject = "memory") -> str:
        """Ask the model for a summary and clip it to `max_tokens`."""
        words = max(10, int(max_tokens * 0.7))
        prompt = _PROMPT.format(subject=_SUBJECTS[subject], words=words, text=text)
        try:
            response = await self._client.chat.completions.create(
                model=self._model,
                messages=[{"role": "user", "content": prompt}],
                max_tokens=max_tokens,
                temperature=0,
            )
        except openai.OpenAIError as exc:
            raise from_openai_error(exc, "chat endpoint") from exc
        content = (response.choices[0].message.content or "").strip() if response.choices else ""
        if not content:
            raise ProviderRejected("chat endpoint returned an empty summary")
        return self._tokens.truncate(content, max_tokens)


class GuardedSummarizer:
    """An LLM summarizer behind its circuit breaker."""

    def __init__(self, summarizer: LlmSummarizer, breaker: CircuitBreaker) -> None:
        self.inner = summarizer
        self.breaker = breaker

    async def summarize(self, text: str, max_tokens: int, subject: Subject = "memory") -> str:
        """A summary; ProviderUnavailable while the endpoint is down or paused."""
        return await self.breaker.call(lambda: self.inner.summarize(text, max_tokens, subject))

    async def aclose(self) -> None:
        await self.inner.aclose()


def build_llm_summarizer(settings: LlmSettings, tokens: TokenCounter) -> LlmSummarizer | None:
    """The configured LLM summarizer, or None when no chat model is set."""
    return OpenAISummarizer(settings, tokens) if settings.model else None
