"""Wake-ups for workers: LISTEN on a connection of its own, connected again when it breaks."""

import asyncio
import contextlib

import structlog
from sqlalchemy.ext.asyncio import AsyncEngine

from app.core.db import database_unavailable
from app.core.job_models import NOTIFY_CHANNEL

log = structlog.get_logger(__name__)


async def listen_for_jobs(
    engine: AsyncEngine, wake: asyncio.Event, stop: asyncio.Event, check_seconds: float
) -> None:
    """Set `wake` on every NOTIFY of new jobs until `stop` is set.

    When the database goes away the connection breaks; it is opened again every
    `check_seconds` until the database is back. Workers poll meanwhile, so nothing is missed.
    """
    while not stop.is_set():
        try:
            await _listen_until_closed(engine, wake, stop, check_seconds)
        except Exception as exc:
            if database_unavailable(exc):
                log.warning("worker.listen_failed", error=f"{type(exc).__name__}: {exc}")
            else:  # polling still finds the jobs; keep the cause in the log
                log.exception("worker.listen_failed")
        await _pause(stop, check_seconds)


async def _listen_until_closed(
    engine: AsyncEngine, wake: asyncio.Event, stop: asyncio.Event, check_seconds: float
) -> None:
    def on_notify(*_: object) -> None:
        wake.set()

    async with engine.connect() as connection:
        raw = await connection.get_raw_connection()
        driver = raw.driver_connection
        if driver is None:
            await stop.wait()  # no driver connection to listen on: polling alone
            return
        await driver.add_listener(NOTIFY_CHANNEL, on_notify)
        wake.set()  # jobs may have been queued while nobody listened
        try:
            while not stop.is_set() and not driver.is_closed():
                await _pause(stop, check_seconds)
        finally:
            if not driver.is_closed():
                await driver.remove_listener(NOTIFY_CHANNEL, on_notify)
    if not stop.is_set():
        log.warning("worker.listen_lost")


async def _pause(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)
