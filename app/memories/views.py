"""The API view of a memory row."""

from typing import Literal, cast

from app.core.job_models import Job
from app.memories.models import Memory, MemoryCold
from app.memories.schemas import (
    JobRead,
    MemoryRead,
    Outcome,
    Provenance,
    Representation,
    Representations,
    SummaryRepresentation,
)

Level = Literal["micro", "summary", "full"]


def _tokens(memory: Memory, level: Level) -> dict[str, int]:
    return {encoding: counts[level] for encoding, counts in memory.token_counts.items()}


def to_read(
    memory: Memory,
    agent_name: str,
    jobs: list[Job],
    default_encoding: str,
    cold: MemoryCold | None = None,
) -> MemoryRead:
    """Build the full record: fields, three representations with token counts, provenance.
    A record retention trimmed reads whole from cold storage (its fields and full text)."""
    micro, summary, full = (_tokens(memory, level) for level in ("micro", "summary", "full"))
    fields, full_text = memory.fields, memory.full_text
    if cold is not None:
        fields, full_text, full = cold.fields, cold.full_text, cold.full_tokens
    return MemoryRead(
        id=memory.id,
        agent_id=agent_name,
        kind=memory.kind,
        state=memory.state,
        fields=fields,
        metadata=memory.meta,
        confidence=memory.confidence,
        outcome=cast(Outcome | None, memory.outcome),
        superseded_by=memory.superseded_by,
        reference_count=memory.reference_count,
        last_referenced_at=memory.last_referenced_at,
        representations=Representations(
            micro=Representation(
                text=memory.micro, tokens=micro[default_encoding], tokens_by_encoding=micro
            ),
            summary=SummaryRepresentation(
                text=memory.summary,
                tokens=summary[default_encoding],
                tokens_by_encoding=summary,
                source=memory.summary_source,
            ),
            full=Representation(
                text=full_text, tokens=full[default_encoding], tokens_by_encoding=full
            ),
        ),
        provenance=Provenance(
            source=memory.source,
            created_at=memory.created_at,
            updated_at=memory.updated_at,
            occurred_at=memory.occurred_at,
            embedding_model=memory.embedding_model,
            embedded_at=memory.embedded_at,
            rescore_model=memory.rescore_model,
            jobs=[
                JobRead(
                    task=job.task,
                    state=job.state,
                    attempts=job.attempts,
                    last_error=job.last_error,
                    updated_at=job.updated_at,
                )
                for job in jobs
            ],
        ),
    )
