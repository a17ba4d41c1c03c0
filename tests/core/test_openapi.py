"""openapi/openapi.json is the app's own document; `make openapi` refreshes it."""

import inspect
import json
from pathlib import Path
from typing import Any

from fastapi.dependencies.models import Dependant
from fastapi.dependencies.utils import get_flat_params
from fastapi.routing import APIRoute, iter_route_contexts

from app.core.config import Settings
from app.core.db import get_db_session
from app.main import create_app
from app.tenants.dependencies import current_tenant

EXPORTED = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"


def test_exported_openapi_matches_the_app(settings: Settings) -> None:
    current = create_app(settings).openapi()
    exported = json.loads(EXPORTED.read_text())
    assert exported == current, "openapi/openapi.json is stale: run `make openapi`"


def test_every_operation_is_described_with_examples(settings: Settings) -> None:
    schema = create_app(settings).openapi()
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            assert operation.get("description") or operation.get("summary"), (method, path)
    create = schema["paths"]["/agents/{agent_id}/memories"]["post"]
    examples = create["requestBody"]["content"]["application/json"]["examples"]
    assert set(examples) == {"decision", "fact", "procedure", "episode", "censor"}
    assert "bearer" in json.dumps(schema["components"]["securitySchemes"]).lower()


def _calls(dependant: Dependant) -> set[object]:
    """Every dependency a route runs, however deep."""
    found: set[object] = set()
    for sub in dependant.dependencies:
        found |= {sub.call} | _calls(sub)
    return found


def _routes(settings: Settings) -> list[tuple[APIRoute, dict[str, Any]]]:
    """Each operation's route (as the router declared it) and its documentation."""
    app = create_app(settings)
    paths = app.openapi()["paths"]
    found = [
        (context.original_route, paths[context.path_format][method.lower()])
        for context in iter_route_contexts(app.routes)
        if isinstance(context.original_route, APIRoute) and context.path_format in paths
        for method in context.methods or ()
    ]
    assert len(found) == sum(len(operations) for operations in paths.values())
    return found


def _on_the_event_loop(call: object) -> bool:
    if inspect.iscoroutinefunction(call) or inspect.isasyncgenfunction(call):
        return True
    return not inspect.isroutine(call) and inspect.iscoroutinefunction(type(call).__call__)


def test_every_route_and_dependency_runs_on_the_event_loop(settings: Settings) -> None:
    """FastAPI runs a plain `def` route or dependency in a thread pool: a hop to another thread
    and back on every request, for work of microseconds (a build had one: its engine)."""
    for route, _ in _routes(settings):
        for call in {route.endpoint} | _calls(route.dependant):
            assert _on_the_event_loop(call), (route.path, call)


def test_every_error_is_documented_as_problem_json(settings: Settings) -> None:
    schema = create_app(settings).openapi()
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            for status, response in operation["responses"].items():
                if int(status) >= 400:
                    assert response["content"] == {
                        "application/problem+json": {
                            "schema": {"$ref": "#/components/schemas/Problem"}
                        }
                    }, (method, path, status)
    problem = schema["components"]["schemas"]["Problem"]
    assert set(problem["required"]) == {"type", "title", "status", "detail", "instance"}
    assert problem["additionalProperties"] is True
    assert "HTTPValidationError" not in schema["components"]["schemas"]


def test_statuses_follow_from_what_each_route_takes(settings: Settings) -> None:
    for route, operation in _routes(settings):
        documented = set(operation["responses"])
        where = (route.path, route.methods)
        dependencies = _calls(route.dependant)
        authenticated = current_tenant in dependencies
        if route.body_field is not None:
            assert {"413", "422"} <= documented, where
        # A path parameter with a convertor ({context_id:uuid}) matches only valid values.
        checked = [p for p in get_flat_params(route.dependant) if f"{{{p.name}:" not in route.path]
        if checked or route.body_field is not None:
            assert "422" in documented, where
        else:
            assert "422" not in documented, where
        assert ("401" in documented) == authenticated == ("security" in operation), where
        if authenticated:
            header = operation["responses"]["401"]["headers"]["WWW-Authenticate"]
            assert header["required"] is True
        if get_db_session in dependencies or route.path == "/readyz":
            header = operation["responses"]["503"]["headers"]["Retry-After"]
            assert header["required"] is True, where
        else:
            assert "503" not in documented, where


def test_batch_limit_is_the_setting(settings: Settings) -> None:
    limited = settings.model_copy(
        update={"api": settings.api.model_copy(update={"batch_max_items": 7})}
    )
    batch = create_app(limited).openapi()["components"]["schemas"]["MemoryBatchCreate"]
    assert batch["properties"]["memories"]["maxItems"] == 7


def test_every_post_takes_an_idempotency_key_and_says_a_replay_is_marked(
    settings: Settings,
) -> None:
    schema = create_app(settings).openapi()
    posts = {path: ops["post"] for path, ops in schema["paths"].items() if "post" in ops}
    assert len(posts) == 13
    for path, operation in posts.items():
        headers = {p["name"] for p in operation.get("parameters", []) if p["in"] == "header"}
        assert "Idempotency-Key" in headers, path
        assert "409" in operation["responses"], path  # the key used for another request
        # a retry whose first response showed a record erased since (scrubbed, not replayed)
        assert "410" in operation["responses"], path
        successes = [r for s, r in operation["responses"].items() if s.startswith("2")]
        assert successes, path
        for response in successes:
            assert response["headers"]["Idempotent-Replayed"]["schema"]["enum"] == ["true"]
