"""The OpenAPI document names every status a route answers, its errors as problem+json.

Routers declare their statuses with `problems(...)`; `install_openapi` fixes what FastAPI
cannot express: errors are `application/problem+json`, not `application/json`, and FastAPI's
own 422 (added to every route with parameters, with a schema of a body this service never
sends) is left out: a route that can answer 422 declares it.
"""

from collections.abc import Callable
from typing import Any, TypeVar

from fastapi import FastAPI
from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter

from app.core.errors import PROBLEM_JSON, RETRY_AFTER_SECONDS
from app.core.fields import stored_json_schema
from app.core.idempotency import IDEMPOTENCY_HEADER, REPLAYED_DESCRIPTION, REPLAYED_HEADER

_FASTAPI_422 = ("HTTPValidationError", "ValidationError")
_PROBLEM_REF = "#/components/schemas/Problem"
_JSON_CONTENT = "x-json-content"
T = TypeVar("T")


class ProblemLocation(BaseModel):
    """One fault of an invalid request, or a stored field a request conflicts with."""

    loc: list[str | int] = Field(
        description="Where: `body`, `query`, `path` or `header`, then field names and indexes; "
        "in a 409, the stored field at fault (`agent`, `default_window`, `total`)."
    )
    msg: str = Field(description="What is wrong there.")
    type: str | None = Field(default=None, description="pydantic's error type, when it found it.")


class Problem(BaseModel):
    """An error as RFC 9457 problem details; members such as `allowed_actions` may follow."""

    model_config = ConfigDict(extra="allow")

    type: str = Field(description='"about:blank": the status and title say what happened.')
    title: str
    status: int
    detail: str = Field(description="What went wrong, and what to do about it.")
    instance: str = Field(description="The path of the request.")
    errors: list[ProblemLocation] | None = Field(
        default=None,
        description="For invalid input (422): each field at fault; in a 409 from an agent's "
        "window defaults: each of its fields in the conflict.",
    )


_DESCRIPTIONS = {
    401: "No API key, or an unknown or revoked one",
    404: "The agent, memory, session, context or frame does not exist for this key's tenant",
    409: "The request conflicts with what is stored; the problem says what is allowed",
    410: "The memory was erased (`DELETE`): only its id, kind and `erased_at` are kept",
    413: "The body is over `CE_API__MAX_BODY_BYTES`",
    422: "Invalid input: `errors` names each field at fault",
    503: "The database is unreachable (or its schema behind); retry after `Retry-After` seconds",
}
_HEADERS: dict[int, dict[str, object]] = {
    401: {
        "WWW-Authenticate": {
            "description": "`Bearer`: send `Authorization: Bearer <key>`.",
            "required": True,
            "schema": {"type": "string"},
        }
    },
    503: {
        "Retry-After": {
            "description": f"Seconds to wait before retrying ({RETRY_AFTER_SECONDS}).",
            "required": True,
            "schema": {"type": "string", "pattern": "^[0-9]+$"},
        }
    },
}

AUTHENTICATED = (401, 503)  # every route behind a key reads the key from the database
WITH_BODY = (413, 422)


def problems(*statuses: int) -> dict[int | str, dict[str, object]]:
    """The `responses=` of a route or router: the error statuses it can answer."""
    return {
        status: {"model": Problem, "description": _DESCRIPTIONS[status]}
        | ({"headers": _HEADERS[status]} if status in _HEADERS else {})
        for status in statuses
    }


def json_content(adapter: TypeAdapter[T], example: JsonValue) -> dict[str, JsonValue]:
    """`json_schema_extra` of a query parameter that holds JSON: documented as JSON content of
    that schema (an OpenAPI parameter `content`), not as a string of any form."""
    schema = adapter.json_schema(ref_template="#/components/schemas/{model}")
    schema.pop("$defs", None)  # the body schemas that use the same types define them
    return {_JSON_CONTENT: {"schema": schema, "example": example}}


def _parameters(document: dict[str, Any]) -> None:
    """JSON parameters as JSON content; no `null` where a query string or header cannot say it
    (an optional parameter is left out, never null)."""
    for operations in document["paths"].values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                schema = parameter.get("schema", {})
                content = schema.get(_JSON_CONTENT)
                if content is not None:
                    del parameter["schema"]
                    parameter["content"] = {"application/json": content}
                    continue
                branches = [s for s in schema.get("anyOf", []) if s != {"type": "null"}]
                if len(branches) == 1 and len(schema["anyOf"]) == 2:
                    del schema["anyOf"]
                    schema.update(branches[0])


def _errors_as_problems(document: dict[str, Any]) -> None:
    fastapi_422 = {"$ref": f"#/components/schemas/{_FASTAPI_422[0]}"}
    for operations in document["paths"].values():
        for operation in operations.values():
            responses = operation["responses"]
            if responses.get("422", {}).get("content", {}).get("application/json") == {
                "schema": fastapi_422
            }:
                del responses["422"]
            for status, response in responses.items():
                content = response.get("content", {})
                if int(status) < 400 or "application/json" not in content:
                    continue
                content.pop("application/json")
                content[PROBLEM_JSON] = {"schema": {"$ref": _PROBLEM_REF}}
    schemas = document.get("components", {}).get("schemas", {})
    for name in _FASTAPI_422:
        schemas.pop(name, None)


# A retry whose first response showed a record erased since (`idempotency.erased_response`).
_ERASED_REPLAY = (
    "a retry (the same Idempotency-Key) whose first response showed a record erased since: "
    "that response is not kept; send a new key to run the request again"
)


def _replayed_header(document: dict[str, Any]) -> None:
    """A route that takes an Idempotency-Key says, in each success, that a retry is marked,
    and that a retry of a response that showed an erased record answers 410."""
    replayed = {"description": REPLAYED_DESCRIPTION, "schema": {"type": "string", "enum": ["true"]}}
    for operations in document["paths"].values():
        for operation in operations.values():
            parameters = operation.get("parameters", [])
            if not any(p["in"] == "header" and p["name"] == IDEMPOTENCY_HEADER for p in parameters):
                continue
            responses = operation["responses"]
            for status, response in responses.items():
                if status.startswith("2"):
                    response.setdefault("headers", {})[REPLAYED_HEADER] = replayed
            if "410" in responses:  # the route's own 410, and this one
                responses["410"]["description"] += f"; or {_ERASED_REPLAY}"
            else:
                problem = {PROBLEM_JSON: {"schema": {"$ref": _PROBLEM_REF}}}
                responses["410"] = {
                    "description": _ERASED_REPLAY[0].upper() + _ERASED_REPLAY[1:],
                    "content": problem,
                }


# The bodies that take up to CE_API__BATCH_MAX_ITEMS items, and the list that holds them.
_BATCHES = (("MemoryBatchCreate", "memories"), ("MessageBatchCreate", "messages"))


def _batch_limit(document: dict[str, Any], batch_max_items: int) -> None:
    # The limit is a setting (CE_API__BATCH_MAX_ITEMS), so each service states its own.
    for schema, items in _BATCHES:
        batch = document["components"]["schemas"][schema]
        batch["properties"][items]["maxItems"] = batch_max_items


def install_openapi(app: FastAPI, *, batch_max_items: int) -> None:
    """Make `app.openapi()` return the exact document: problem+json errors, JSON parameters,
    the replay header, the batch limit."""
    generate: Callable[[], dict[str, Any]] = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = generate()
            _errors_as_problems(document)
            _parameters(document)
            _replayed_header(document)
            document["components"]["schemas"]["StoredJson"] = stored_json_schema()
            _batch_limit(document, batch_max_items)
        assert app.openapi_schema is not None
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's documented way to extend it
