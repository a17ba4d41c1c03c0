"""A circuit breaker for a model provider.

After `failures_to_open` failures in a row, calls stop for a pause; then one call (the trial)
goes through while the others are refused. A trial that fails doubles the pause, up to
`max_pause_seconds`; any answer closes the breaker. Builds skip a provider that is known to be
down instead of waiting for it, and workers stop claiming its jobs until the pause is over.

A caller that cannot wait gives a deadline. Missing it is the caller's business, not the
provider's failure: the call goes on in the background and its own outcome (an answer, an
error, or the provider's timeout) is what the breaker counts. So a local model slowed down by a
busy machine never pauses, and a provider that hangs pauses once its own timeouts say so.
"""

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Literal, TypeVar

import structlog

from app.core.config import BreakerSettings
from app.core.metrics import PROVIDER_CIRCUIT_OPEN
from app.providers.errors import ProviderRejected, ProviderUnavailable

T = TypeVar("T")
log = structlog.get_logger(__name__)


class CircuitBreaker:
    """Shared by every caller of one provider in this process (event-loop only, no locks)."""

    def __init__(
        self,
        provider: str,
        settings: BreakerSettings,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.provider = provider
        self._settings = settings
        self._clock = clock
        self._failures = 0
        self._pause = settings.first_pause_seconds
        self._open_until: float | None = None  # None while closed
        self._trial_running = False
        self._opened = 0  # how many times it opened: a trial counts only for its own opening
        self._recovered = False
        self._calls: set[asyncio.Task[object]] = set()  # calls under way, some left by callers
        PROVIDER_CIRCUIT_OPEN.labels(provider).set(0)

    @property
    def state(self) -> Literal["closed", "open", "trial"]:
        if self._open_until is None:
            return "closed"
        return "trial" if self._trial_running else "open"

    def ready(self) -> bool:
        """Whether a call would go through now (closed, or open with its pause over)."""
        if self._open_until is None:
            return True
        return not self._trial_running and self._clock() >= self._open_until

    @property
    def recovered(self) -> bool:
        """Whether the breaker closed again since `take_recovery` last said so."""
        return self._recovered

    def take_recovery(self) -> bool:
        """True once after the breaker closed again: the provider is back."""
        recovered, self._recovered = self._recovered, False
        return recovered

    async def call(
        self, operation: Callable[[], Awaitable[T]], *, deadline: float | None = None
    ) -> T:
        """Run one provider call through the breaker; stop waiting for it after `deadline`
        seconds (ProviderUnavailable), while it goes on to its own end."""
        trial = self._enter()
        task: asyncio.Task[T] = asyncio.ensure_future(self._counted(operation, trial))
        self._calls.add(task)  # kept alive until done: a caller may stop waiting for it
        task.add_done_callback(self._settle)
        try:
            return await asyncio.wait_for(asyncio.shield(task), deadline)
        except TimeoutError as exc:
            raise ProviderUnavailable(
                f"{self.provider} gave no answer within {deadline} s; it goes on in the background"
            ) from exc

    async def _counted(self, operation: Callable[[], Awaitable[T]], trial: int | None) -> T:
        try:
            result = await operation()
        except ProviderUnavailable:
            self._failed(trial)
            raise
        except TimeoutError as exc:
            self._failed(trial)
            raise ProviderUnavailable(f"{self.provider} timed out") from exc
        except ProviderRejected:
            self._succeeded()  # it answered: it is up, only this input is wrong
            raise
        except BaseException:
            if trial == self._opened:  # cancelled, or a bug: the next call is the trial instead
                self._trial_running = False
            raise
        self._succeeded()
        return result

    def _settle(self, task: "asyncio.Task[object]") -> None:
        self._calls.discard(task)
        if not task.cancelled():
            task.exception()  # seen here: a call nobody waits for any more ends quietly

    def _enter(self) -> int | None:
        """Let a call through, or refuse it while the pause lasts; the trial gets the number
        of the opening it tries."""
        if self._open_until is None:
            return None
        if not self.ready():
            wait = max(self._open_until - self._clock(), 0.0)
            raise ProviderUnavailable(
                f"{self.provider} is failing; calls are paused (next try in {wait:.1f} s)"
            )
        self._trial_running = True
        return self._opened

    def _failed(self, trial: int | None) -> None:
        self._failures += 1
        if trial is not None and trial == self._opened and self._open_until is not None:
            self._trial_running = False  # the trial failed: open again, for longer
        elif self._open_until is not None or self._failures < self._settings.failures_to_open:
            return  # still closed, or a call begun before the breaker opened
        self._opened += 1
        self._open_until = self._clock() + self._pause
        log.warning(
            "provider.circuit_open",
            provider=self.provider,
            failures=self._failures,
            pause_seconds=self._pause,
        )
        self._pause = min(self._pause * 2, self._settings.max_pause_seconds)
        PROVIDER_CIRCUIT_OPEN.labels(self.provider).set(1)

    def _succeeded(self) -> None:
        if self._open_until is not None:
            log.info("provider.circuit_closed", provider=self.provider, failures=self._failures)
            self._recovered = True
            PROVIDER_CIRCUIT_OPEN.labels(self.provider).set(0)
        self._failures = 0
        self._pause = self._settings.first_pause_seconds
        self._open_until = None
        self._trial_running = False
