"""The `openai` client as every OpenAI-compatible provider here configures it."""

import openai
from pydantic import SecretStr


def openai_client(
    base_url: str | None, api_key: SecretStr | None, timeout: float
) -> openai.AsyncOpenAI:
    """A client without its own retries: the job queue retries with backoff."""
    return openai.AsyncOpenAI(
        base_url=base_url,
        api_key=api_key.get_secret_value() if api_key else "not-needed",
        timeout=timeout,
        max_retries=0,
    )
