"""OpenAPI examples of tool calls."""

from fastapi.openapi.models import Example

CALL_EXAMPLES: dict[str, Example] = {
    "search": Example(
        summary="search_memory, its arguments as the model returned them",
        value={
            "tool_call_id": "call_8Kx2",
            "arguments": '{"query": "why did we pick Postgres", "session_id": "chat-1"}',
        },
    ),
    "expand": Example(
        summary="expand_memory, its arguments as an object",
        value={"arguments": {"memory_id": "0b7c5a52-3f0e-4d8e-9a55-1f0a4c1d2e3f"}},
    ),
}
