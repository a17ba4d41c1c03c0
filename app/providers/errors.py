"""Errors raised by model providers, sorted by whether trying again can help."""

import openai


class ProviderError(RuntimeError):
    """A provider call failed."""


class ProviderUnavailable(ProviderError):
    """The provider could not answer now (down, slow, overloaded or misconfigured): the call is
    tried again later, for as long as it takes."""


class ProviderRejected(ProviderError):
    """The provider refused this input as invalid: the same call will never succeed."""


# Statuses that say the request itself is at fault. Everything else an endpoint answers (a
# timeout, 401/403/404 of a wrong key or model, 408, 409, 429, 5xx) can pass once the provider
# or its configuration is fixed.
_REJECTING_STATUSES = frozenset({400, 413, 422})


def from_openai_error(exc: openai.OpenAIError, endpoint: str) -> ProviderError:
    """The provider error for a failure of the `openai` client."""
    message = f"{endpoint} failed: {exc}"
    if isinstance(exc, openai.APIStatusError) and exc.status_code in _REJECTING_STATUSES:
        return ProviderRejected(message)
    return ProviderUnavailable(message)
