"""OpenAPI examples of memory requests."""

from fastapi.openapi.models import Example

CREATE_EXAMPLES: dict[str, Example] = {
    "decision": Example(
        summary="A decision",
        value={
            "kind": "decision",
            "decision": "Chose Postgres + pgvector over a separate vector database",
            "reasons": ["One backup, one monitor, one connection pool."],
            "alternatives": ["ChromaDB", "Qdrant"],
            "confidence": 0.85,
            "metadata": {"topic": "storage"},
        },
    ),
    "fact": Example(
        summary="A fact",
        value={
            "kind": "fact",
            "content": "Redis adds a separate service to manage, monitor and back up.",
            "confidence": 0.9,
            "source": "ops-review",
        },
    ),
    "procedure": Example(
        summary="A procedure",
        value={
            "kind": "procedure",
            "name": "Deploy",
            "description": "How a change reaches production.",
            "steps": ["branch", "PR", "review", "CI", "merge"],
            "domain": "delivery",
        },
    ),
    "episode": Example(
        summary="An episode",
        value={
            "kind": "episode",
            "title": "Storage architecture discussion",
            "detail": "Two hours with Tim: compared Postgres, ChromaDB and Qdrant; chose Postgres.",
            "participants": ["Tim"],
            "started_at": "2026-11-02T14:00:00Z",
            "ended_at": "2026-11-02T16:00:00Z",
        },
    ),
    "censor": Example(
        summary="A censor",
        value={
            "kind": "censor",
            "trigger_pattern": "Don't push directly to main",
            "reason": "Every change goes through review.",
            "action": "block",
        },
    ),
}

UPDATE_EXAMPLES: dict[str, Example] = {
    "record_outcome": Example(
        summary="Decision: record the outcome",
        value={"action": "record_outcome", "outcome": "success", "notes": "Queries 8.5x faster."},
    ),
    "amend_outcome": Example(
        summary="Decision, reviewed: correct the outcome",
        value={"action": "amend_outcome", "outcome": "failure", "notes": "Writes stalled."},
    ),
    "confirm": Example(summary="Fact: confirm", value={"action": "confirm"}),
    "supersede": Example(
        summary="Fact: superseded by a newer fact",
        value={"action": "supersede", "superseded_by": "0b9f7a0e-4f5e-4c1e-9d3a-2f1c7e1b5a10"},
    ),
    "record_activation": Example(
        summary="Procedure: used, with its result",
        value={"action": "record_activation", "success": True},
    ),
    "record_false_positive": Example(
        summary="Censor: a false positive", value={"action": "record_false_positive"}
    ),
}
