"""Errors raised by model providers."""


class ProviderError(RuntimeError):
    """A provider call failed; the job that made it is retried with backoff."""
