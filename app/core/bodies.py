"""JSON request bodies are read as RFC 8259 says: UTF-8, and nothing but JSON.

The standard library would also read UTF-16 and UTF-32 (guessing from the first bytes), NaN
and Infinity; FastAPI answers 400 for what it cannot decode. Here each is invalid input (422),
and so is a batch of more items than the service takes at once.
"""

import json
from collections.abc import Callable, Coroutine, Sized
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute
from pydantic import JsonValue
from starlette.requests import ClientDisconnect

from app.core.errors import InvalidInput

NOT_UTF8 = "Request bodies must be JSON in UTF-8 (RFC 8259); this one is not valid UTF-8."


def check_batch_size(items: Sized, limit: int, field: str) -> None:
    """A batch body's list `field` holds at most `limit` (CE_API__BATCH_MAX_ITEMS) items."""
    if len(items) > limit:
        raise InvalidInput(
            f"A batch holds at most {limit} {field} (CE_API__BATCH_MAX_ITEMS); split it.",
            loc=["body", field],
        )


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


class _JsonRequest(Request):
    """Parses its body, already checked to be UTF-8, as strict JSON."""

    async def json(self) -> JsonValue:
        if not hasattr(self, "_json"):
            self._json = _parse((await self.body()).decode("utf-8"))
        parsed: JsonValue = self._json
        return parsed


def _parse(text: str) -> JsonValue:
    try:
        parsed: JsonValue = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError:
        raise
    except (ValueError, RecursionError) as exc:
        # FastAPI renders a JSONDecodeError as 422; anything else would be a 400.
        raise json.JSONDecodeError(f"not readable JSON: {exc}", text, 0) from exc
    return parsed


class JsonBodyRoute(APIRoute):
    """A route whose body, if it has one, must be UTF-8 JSON."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        if self.body_field is None:
            return handler

        async def utf8_json_only(request: Request) -> Response:
            checked = _JsonRequest(request.scope, request.receive)
            try:
                body = await checked.body()
            except ClientDisconnect:
                # The client left, or the body size limit has answered 413: nobody reads this.
                return Response(status_code=400)
            try:
                body.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InvalidInput(NOT_UTF8, loc=["body"]) from exc
            return await handler(checked)

        return utf8_json_only
