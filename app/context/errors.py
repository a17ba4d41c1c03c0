"""What a context request's errors mean over HTTP, where the engine's own type says too little."""

import contextlib
from collections.abc import Iterator

from app.core.errors import InvalidInput, NotFound


@contextlib.contextmanager
def missing_frame_is_not_found() -> Iterator[None]:
    """A frame the agent does not have is a resource that does not exist (404), not malformed
    input: whether it exists is stored state, which no schema of the request can say. The build
    raises it as invalid input with the agent's `allowed_frames`; until it raises NotFound itself,
    this says it."""
    try:
        yield
    except InvalidInput as exc:
        if "allowed_frames" not in exc.extensions:
            raise
        frames = exc.extensions["allowed_frames"]
        raise NotFound(exc.detail, allowed_frames=frames) from exc
