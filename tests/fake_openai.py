"""A small OpenAI-compatible server for tests, served over real HTTP on 127.0.0.1.

It computes its answers instead of returning canned ones:

- `POST /v1/embeddings`: one vector per input text, derived from the SHA-256 of the text and
  L2-normalised (`embedding_for`), of the requested `dimensions` or `default_dimensions`;
  `encoding_format` "float" or "base64" (little-endian float32, what the `openai` client asks
  for by default).
- `POST /v1/chat/completions`: "LLM summary: " followed by the first `summary_words` words of
  the last user message after its last blank line (`summary_for`); when the last message is a
  tool's result, of that whole result instead. A request whose `tool_choice` names one of its
  `tools` (or is "required": the first) is answered with a call of that tool, unless the last
  message is a tool's result: its arguments give each required string parameter the last user
  message's text (`tool_arguments`).

Every request is recorded (`requests`), and the server can be told to fail the next N requests
or every request with a given status, to hang (accept requests and never answer them), or to
reject with 400 any embeddings request whose input contains a marker, until `recover()` or
`reset()`. `stop()` closes the port, so connections are refused, and `start(port)` opens the
same port again.
"""

import asyncio
import base64
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Self

import numpy as np
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tests.fake_openai_answers import (
    chosen_tool,
    completion,
    embedding_for,
    error,
    summary_for,
    tool_call,
)


@dataclass(frozen=True)
class RecordedRequest:
    """One request the fake received, and the status it answered with."""

    path: str
    authorization: str | None
    body: dict[str, Any]
    status: int


class FakeOpenAI:
    """The fake server: start it once, `reset()` it between tests."""

    def __init__(self, *, default_dimensions: int = 384, summary_words: int = 12) -> None:
        self._initial = (default_dimensions, summary_words)
        self.default_dimensions = default_dimensions
        self.summary_words = summary_words
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        self._fail_next = 0
        self._fail_all = False
        self._fail_status = 500
        self._answering = threading.Event()  # cleared while the server hangs
        self._answering.set()
        self._stopping = False  # requests held by a hang are answered 503 when the server stops
        self._reject_marker: str | None = None
        self._created = 0
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._port: int | None = None
        self.app = Starlette(
            routes=[
                Route("/v1/embeddings", self._embeddings, methods=["POST"]),
                Route("/v1/chat/completions", self._chat_completions, methods=["POST"]),
            ]
        )

    # Control, from the test's thread.

    @property
    def port(self) -> int:
        """The port it listens on (to start it again on the same one after `stop()`)."""
        if self._port is None:
            raise RuntimeError("the fake OpenAI server is not running")
        return self._port

    @property
    def url(self) -> str:
        """The server's root, e.g. http://127.0.0.1:43211 (the API is under /v1)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received since the last reset, oldest first."""
        with self._lock:
            return list(self._requests)

    def requests_to(self, path: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path == path]

    def fail_next(self, count: int, status: int = 500) -> None:
        """Answer the next `count` requests with `status` (then serve normally again)."""
        with self._lock:
            self._fail_next, self._fail_status = count, status

    def fail_all(self, status: int = 503) -> None:
        """Answer every request with `status` until `recover()` or `reset()`."""
        with self._lock:
            self._fail_all, self._fail_status = True, status

    def hang(self) -> None:
        """Accept every request and answer none, until `recover()` or `reset()`."""
        self._answering.clear()

    def reject_inputs_containing(self, marker: str) -> None:
        """Answer 400 to embeddings requests with an input that contains `marker`, as an
        endpoint does for an input it will never take (too long, say)."""
        with self._lock:
            self._reject_marker = marker

    def recover(self) -> None:
        """Stop failing, hanging and rejecting requests."""
        with self._lock:
            self._fail_next, self._fail_all = 0, False
            self._reject_marker = None
        self._answering.set()

    def reset(self) -> None:
        """Stop failing, forget the requests and restore the initial dimensions and words."""
        self.recover()
        with self._lock:
            self._requests.clear()
            self.default_dimensions, self.summary_words = self._initial

    # Lifecycle.

    def start(self, port: int = 0) -> None:
        """Serve on 127.0.0.1 on `port` (0: a free one) in a background thread; returns once
        it listens."""
        config = uvicorn.Config(
            self.app,
            host="127.0.0.1",
            port=port,
            http="h11",
            ws="none",
            lifespan="off",
            loop="asyncio",
            log_level="warning",
            access_log=False,
        )
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, name="fake-openai", daemon=True)
        thread.start()
        deadline = time.monotonic() + 10
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                server.should_exit = True
                thread.join(5)
                raise RuntimeError("the fake OpenAI server did not start")
            time.sleep(0.005)
        self._server, self._thread = server, thread
        self._port = int(server.servers[0].sockets[0].getsockname()[1])

    def stop(self) -> None:
        """Shut the server down and wait for its thread (requests it holds are let go)."""
        self._stopping = True
        self._answering.set()
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._thread.join(10)
            if self._thread.is_alive():
                raise RuntimeError("the fake OpenAI server did not stop")
        self._server = self._thread = self._port = None
        self._stopping = False

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    # Handlers, on the server's thread.

    async def _receive(self, request: Request) -> tuple[dict[str, Any], int | None]:
        """Parse and record the request; returns its body and the status to fail with, if any."""
        try:
            body = await request.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            body = {}
        with self._lock:
            status: int | None = None
            marker = self._reject_marker
            inputs = body.get("input")
            texts = [inputs] if isinstance(inputs, str) else inputs
            if marker and isinstance(texts, list) and any(marker in str(t) for t in texts):
                status = 400
            elif self._fail_all:
                status = self._fail_status
            elif self._fail_next > 0:
                self._fail_next -= 1
                status = self._fail_status
            self._requests.append(
                RecordedRequest(
                    path=request.url.path,
                    authorization=request.headers.get("authorization"),
                    body=body,
                    status=status or 200,
                )
            )
        if not self._answering.is_set():
            await asyncio.to_thread(self._answering.wait)
            if self._stopping:
                status = 503
        return body, status

    def _next_id(self) -> int:
        with self._lock:
            self._created += 1
            return self._created

    async def _embeddings(self, request: Request) -> JSONResponse:
        body, fail = await self._receive(request)
        if fail == 400:
            return error(fail, "this input is too long for the model", "invalid_request_error")
        if fail is not None:
            return error(fail, f"fake failure ({fail})", "server_error")
        model, raw_input = body.get("model"), body.get("input")
        texts: Sequence[object] = [raw_input] if isinstance(raw_input, str) else raw_input or []
        if not isinstance(model, str) or not texts or not isinstance(texts, list):
            return error(400, "model and a non-empty input are required", "invalid_request_error")
        if not all(isinstance(t, str) and t for t in texts):
            return error(400, "input must be non-empty strings", "invalid_request_error")
        requested = body.get("dimensions")
        dimensions = requested if isinstance(requested, int) else self.default_dimensions
        encoding = body.get("encoding_format", "float")
        data = []
        for index, text in enumerate(texts):
            vector = embedding_for(str(text), dimensions)
            embedding: list[float] | str = vector
            if encoding == "base64":
                raw = np.asarray(vector, dtype="<f4").tobytes()
                embedding = base64.b64encode(raw).decode()
            data.append({"object": "embedding", "index": index, "embedding": embedding})
        tokens = sum(len(str(t).split()) for t in texts)
        return JSONResponse(
            {
                "object": "list",
                "data": data,
                "model": model,
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            }
        )

    async def _chat_completions(self, request: Request) -> JSONResponse:
        body, fail = await self._receive(request)
        if fail is not None:
            return error(fail, f"fake failure ({fail})", "server_error")
        model, messages = body.get("model"), body.get("messages")
        prompts = [
            m["content"]
            for m in (messages if isinstance(messages, list) else [])
            if isinstance(m, dict) and m.get("role") == "user" and isinstance(m.get("content"), str)
        ]
        if not isinstance(model, str) or not prompts:
            return error(400, "model and a user message are required", "invalid_request_error")
        last = messages[-1] if isinstance(messages, list) and messages else {}
        answered = isinstance(last, dict) and last.get("role") == "tool"
        function = None if answered else chosen_tool(body)
        if function is not None:
            ids = (f"call_fake_{self._next_id()}", f"chatcmpl-fake-{self._next_id()}")
            return tool_call(ids, model, function, prompts[-1])
        said = str(last.get("content")) if answered else prompts[-1]
        # A tool's result is answered from its start, blank lines and all.
        summary = summary_for(said.replace("\n\n", "\n") if answered else said, self.summary_words)
        message = {"role": "assistant", "content": summary}
        return completion(
            f"chatcmpl-fake-{self._next_id()}",
            model,
            message,
            "stop",
            (len(said.split()), len(summary.split())),
        )
