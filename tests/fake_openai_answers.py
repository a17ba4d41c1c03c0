"""What the fake OpenAI server (`fake_openai.py`) answers, computed from the request: an
embedding from the text's SHA-256, a summary from the last user message's words, a tool call's
arguments, a chat completion's and an error's JSON."""

import hashlib
import json
import time
from typing import Any

import numpy as np
from starlette.responses import JSONResponse

SUMMARY_PREFIX = "LLM summary:"


def embedding_for(text: str, dimensions: int) -> list[float]:
    """The fake's vector for `text`: seeded by its SHA-256, L2-normalised, float32 precision."""
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    vector = np.random.default_rng(seed).standard_normal(dimensions)
    vector /= np.linalg.norm(vector)
    return [float(x) for x in vector.astype(np.float32)]


def summary_for(prompt: str, words: int) -> str:
    """The fake's summary: the first `words` words after the prompt's last blank line."""
    text = prompt.rsplit("\n\n", 1)[-1]
    return f"{SUMMARY_PREFIX} {' '.join(text.split()[:words])}"


def chosen_tool(body: dict[str, Any]) -> dict[str, Any] | None:
    """The function a request's `tool_choice` forces: the one it names, or the first of
    `tools` for "required"; None when the model may answer in words."""
    tools = [t.get("function") for t in body.get("tools") or [] if isinstance(t, dict)]
    functions = [f for f in tools if isinstance(f, dict)]
    choice = body.get("tool_choice")
    if choice == "required":
        return functions[0] if functions else None
    if isinstance(choice, dict) and isinstance(choice.get("function"), dict):
        name = choice["function"].get("name")
        return next((f for f in functions if f.get("name") == name), None)
    return None


def tool_arguments(function: dict[str, Any], text: str) -> dict[str, str]:
    """The fake's arguments of a call: `text` for each required string parameter."""
    parameters = function.get("parameters") or {}
    properties = parameters.get("properties") or {}
    return {
        name: text
        for name in parameters.get("required") or []
        if (properties.get(name) or {}).get("type") == "string"
    }


def error(status: int, message: str, kind: str) -> JSONResponse:
    return JSONResponse(
        {"error": {"message": message, "type": kind, "param": None, "code": str(status)}},
        status_code=status,
    )


def completion(
    response_id: str,
    model: str,
    message: dict[str, Any],
    finish_reason: str,
    tokens: tuple[int, int],
) -> JSONResponse:
    """A chat completion of one choice; `tokens`: its prompt's and its own."""
    prompt_tokens, completion_tokens = tokens
    return JSONResponse(
        {
            "id": response_id,
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
    )


def tool_call(
    ids: tuple[str, str], model: str, function: dict[str, Any], prompt: str
) -> JSONResponse:
    """A chat completion that calls `function` with `tool_arguments`; `ids`: the call's and the
    completion's."""
    call = {
        "id": ids[0],
        "type": "function",
        "function": {
            "name": function.get("name"),
            "arguments": json.dumps(tool_arguments(function, prompt)),
        },
    }
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    return completion(ids[1], model, message, "tool_calls", (0, 0))
