"""The service's probes and metrics, for a health check or a test's wait (sync and async)."""

from __future__ import annotations

from context_engine_client.core import AsyncSender, Call, SyncSender, decode
from context_engine_client.models import Health, Readiness


def health() -> Call[Health]:
    return Call("GET", "/healthz", decode(Health.model_validate_json))


def ready() -> Call[Readiness]:
    return Call("GET", "/readyz", decode(Readiness.model_validate_json))


def metrics() -> Call[str]:
    return Call("GET", "/metrics", lambda response: response.text)


class SyncProbes:
    """`ContextEngine`'s probes."""

    def health(self: SyncSender) -> Health:
        """The process answers (liveness)."""
        return self.send(health())

    def ready(self: SyncSender) -> Readiness:
        """The database answers and its schema is current; `Unavailable` while not."""
        return self.send(ready())

    def metrics(self: SyncSender) -> str:
        """`/metrics` in Prometheus' text format."""
        return self.send(metrics())


class AsyncProbes:
    """`AsyncContextEngine`'s probes."""

    async def health(self: AsyncSender) -> Health:
        """The process answers (liveness)."""
        return await self.send(health())

    async def ready(self: AsyncSender) -> Readiness:
        """The database answers and its schema is current; `Unavailable` while not."""
        return await self.send(ready())

    async def metrics(self: AsyncSender) -> str:
        """`/metrics` in Prometheus' text format."""
        return await self.send(metrics())
