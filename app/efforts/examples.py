"""OpenAPI examples of effort requests."""

from fastapi.openapi.models import Example

OPEN_EXAMPLES: dict[str, Example] = {
    "bug": Example(
        summary="An effort with a goal",
        value={
            "title": "Fix the 401s after login",
            "goal": "Find why refreshed tokens are rejected by the auth service.",
        },
    ),
    "title": Example(summary="A title alone", value={"title": "Plan the sailing trip"}),
}
