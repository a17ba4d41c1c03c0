"""OpenAPI examples of session requests."""

from fastapi.openapi.models import Example

APPEND_EXAMPLES: dict[str, Example] = {
    "turn": Example(
        summary="A user's question and the answer",
        value={
            "messages": [
                {"role": "user", "content": "Which database did we choose for the memories?"},
                {
                    "role": "assistant",
                    "content": "PostgreSQL with pgvector: one backup, one monitor.",
                },
            ]
        },
    ),
    "tool": Example(
        summary="A tool's result",
        value={
            "messages": [
                {
                    "role": "tool",
                    "tool_call_id": "call_8Kx2",
                    "content": "deploy 412 finished at 09:30, all checks green",
                    "created_at": "2026-11-23T09:31:00Z",
                }
            ]
        },
    ),
}
