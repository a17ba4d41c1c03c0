"""From a written memory to its stored row: its own fields with its kind's counters, its three
representations and their token counts in every encoding, and its anchors."""

import uuid
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from pydantic import JsonValue

from app.core.config import Settings
from app.memories import lifecycle
from app.memories.models import Memory
from app.memories.representations import Rendered, render
from app.memories.schemas import EpisodeCreate, MemoryCreate
from app.providers.container import Providers

TokenCounts = dict[str, dict[str, int]]  # encoding -> level -> tokens

# Columns of their own, not kept among the kind's fields.
_COMMON_FIELDS = {"kind", "source", "metadata", "occurred_at"}
# The counters a kind's lifecycle keeps, from zero.
_COUNTERS: dict[str, dict[str, JsonValue]] = {
    "fact": {"confirmation_count": 0},
    "procedure": {"activation_count": 0, "success_count": 0, "effectiveness": None},
    "censor": {"activation_count": 0, "false_positive_count": 0},
}


def fields_of(item: MemoryCreate) -> dict[str, JsonValue]:
    """The kind's own fields of a written memory, with its counters."""
    return {
        **item.model_dump(mode="json", exclude=_COMMON_FIELDS),
        **_COUNTERS.get(item.kind, {}),
    }


def _token_counts(rendered: Rendered, providers: Providers) -> TokenCounts:
    counts = {
        level: providers.tokens.counts(getattr(rendered, level))
        for level in ("micro", "summary", "full")
    }
    return {enc: {level: counts[level][enc] for level in counts} for enc in counts["micro"]}


def render_all(
    memories: Sequence[tuple[str, dict[str, JsonValue]]], providers: Providers
) -> list[tuple[Rendered, TokenCounts]]:
    """The representations of each (kind, fields) and their token counts (CPU work: call it
    on a thread)."""
    results = []
    for kind, fields in memories:
        rendered = render(kind, fields, providers.tokens, providers.extractive)
        rendered = replace(rendered, anchors=tuple(providers.anchors.find(rendered.full)))
        results.append((rendered, _token_counts(rendered, providers)))
    return results


def wants_llm_summary(
    rendered: Rendered, counts: TokenCounts, encoding: str, settings: Settings
) -> bool:
    """Whether the LLM should rewrite this summary: extractive, and long enough to need it."""
    full_tokens = counts[encoding]["full"]
    return rendered.wants_llm_summary and full_tokens >= settings.llm.summary_min_tokens


def new_memory(
    tenant_id: uuid.UUID,
    agent_id: uuid.UUID,
    item: MemoryCreate,
    fields: dict[str, JsonValue],
    rendered: Rendered,
    counts: TokenCounts,
    now: datetime,
) -> Memory:
    """The row of one written memory, in its kind's first state."""
    when = item.occurred_at
    if when is None and isinstance(item, EpisodeCreate):
        when = item.started_at or item.ended_at  # by its end it had happened
    return Memory(
        id=uuid.uuid4(),
        tenant_id=tenant_id,
        agent_id=agent_id,
        kind=item.kind,
        state=lifecycle.initial_state(item.kind, getattr(item, "outcome", None)),
        fields=fields,
        micro=rendered.micro,
        summary=rendered.summary,
        full_text=rendered.full,
        anchors=list(rendered.anchors),
        summary_source=rendered.summary_source,
        token_counts=counts,
        confidence=getattr(item, "confidence", None),
        outcome=getattr(item, "outcome", None),
        source=item.source,
        meta=item.metadata,
        occurred_at=when or now,
        dated=when is not None,
    )
