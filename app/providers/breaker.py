"""A circuit breaker for a model provider.

After `failures_to_open` failures in a row, calls stop for a pause; then one call (the trial)
goes through while the others are refused. A trial that fails doubles the pause, up to
`max_pause_seconds`; any answer closes the breaker. Builds skip a provider that is known to be
down instead of waiting for it, and workers stop claiming its jobs until the pause is over.
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
        self._recovered = False
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

    def take_recovery(self) -> bool:
        """True once after the breaker closed again: the provider is back."""
        recovered, self._recovered = self._recovered, False
        return recovered

    async def call(
        self, operation: Callable[[], Awaitable[T]], *, deadline: float | None = None
    ) -> T:
        """Run one provider call through the breaker, giving up after `deadline` seconds."""
        trial = self._enter()
        try:
            async with asyncio.timeout(deadline):
                result = await operation()
        except TimeoutError as exc:
            self._failed(trial)
            raise ProviderUnavailable(
                f"{self.provider} gave no answer within {deadline} s" if deadline else str(exc)
            ) from exc
        except ProviderUnavailable:
            self._failed(trial)
            raise
        except ProviderRejected:
            self._succeeded()  # it answered: it is up, only this input is wrong
            raise
        except BaseException:
            if trial:  # cancelled, or a bug: the next call is the trial instead
                self._trial_running = False
            raise
        self._succeeded()
        return result

    def _enter(self) -> bool:
        """Let a call through, or refuse it while the pause lasts; True for the trial."""
        if self._open_until is None:
            return False
        if not self.ready():
            wait = max(self._open_until - self._clock(), 0.0)
            raise ProviderUnavailable(
                f"{self.provider} is failing; calls are paused (next try in {wait:.1f} s)"
            )
        self._trial_running = True
        return True

    def _failed(self, trial: bool) -> None:
        self._failures += 1
        if trial:
            self._trial_running = False
        elif self._open_until is not None or self._failures < self._settings.failures_to_open:
            return  # still closed, or a call begun before the breaker opened
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
