"""The speed benchmark's inputs: never built before (a build embeds each), built again (its
vector is kept), or appended to a session as the user's message just before the build."""

import time
from collections.abc import Iterator, Sequence

from pydantic import JsonValue

from bench.common.client import ApiClient
from bench.common.corpus import CorpusGenerator
from bench.common.ingest import progress

INBOX = "inbox"  # the session the appended inputs go to


def new_inputs(seed: int, batch: int = 200) -> Iterator[str]:
    """Inputs an agent of the team might build for, each once, in a stable order."""
    seen: set[str] = set()
    generator = CorpusGenerator(seed)
    while True:
        for query in generator.queries(batch):
            if query not in seen:
                seen.add(query)
                yield query


async def appended_builds(
    api: ApiClient, agent: str, requests: Sequence[dict[str, JsonValue]], desc: str
) -> tuple[list[float], list[float]]:
    """Server ms of builds whose input was appended to a session as the user's message right
    before (as an agent does with what its user just said), and client ms of those appends."""
    server, appends = [], []
    with progress(len(requests), desc, "build") as bar:
        for request in requests:
            message: dict[str, JsonValue] = {"role": "user", "content": request["input"]}
            started = time.perf_counter()
            await api.append_messages(agent, INBOX, [message])
            appends.append((time.perf_counter() - started) * 1000)
            built, _elapsed_ms = await api.build(request)
            server.append(built.timings_ms["total"])
            bar.update(1)
    return server, appends
