"""How the inspector answers: its templates, its HTML responses and its error pages."""

import json
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

import jinja2
from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

HERE = Path(__file__).parent
LOGIN_PATH = "/inspect/login"
# The pages load nothing but their own stylesheet, run no script and post only to themselves.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; style-src-attr 'unsafe-inline'; img-src 'self'; "
        "form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",  # no-referrer would make forms send `Origin: null`
    "Cache-Control": "no-store",
}


def _when(value: datetime | None) -> str:
    return "" if value is None else f"{value:%Y-%m-%d %H:%M:%S} UTC"


def _number(value: float | None, digits: int = 3) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def _value(value: object) -> str:
    """A field's value as a person reads it: text as it is, anything else as JSON."""
    if isinstance(value, str):
        return value
    return "—" if value is None else json.dumps(value, ensure_ascii=False)


def templates() -> Jinja2Templates:
    """The inspector's templates; every value they show is escaped."""
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=True,  # every value is escaped: memories and inputs are user text
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters["when"] = _when
    environment.filters["number"] = _number
    environment.filters["value"] = _value
    return Jinja2Templates(env=environment)


def render(
    request: Request, template: str, context: Mapping[str, object], status_code: int = 200
) -> HTMLResponse:
    """A page of the inspector, with headers that keep it to itself."""
    templates: Jinja2Templates = request.app.state.inspect_templates
    return templates.TemplateResponse(
        request, template, dict(context), status_code=status_code, headers=SECURITY_HEADERS
    )
