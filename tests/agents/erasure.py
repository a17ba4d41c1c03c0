"""An agent that owns a record of every kind, for the erasure tests: memories of each kind with
vectors, lifecycle logs, a retention record and a cold copy, a session with messages, a long
message's summary and a concluded effort, builds (one a refresh) with feedback, retention
limits, idempotent writes (a batch, an effort, a tool call), and jobs still queued. Each text
holds one word (`marker`) so that a scan of every table finds whatever is left of them."""

import random
import string
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.core.worker import Worker
from app.models import Base
from tests.factories import Tenancy, decision, procedure
from tests.retention.writes import NOW, censor, episode


def new_marker() -> str:
    """A word no other test writes (letters only: PostgreSQL's stemming keeps its stem)."""
    return "qx" + "".join(random.choices(string.ascii_lowercase, k=12))


@dataclass
class Owned:
    """The ids of what an agent was given."""

    agent: str
    marker: str
    memories: dict[str, str] = field(default_factory=dict)
    session: str = "chat-1"
    effort: str = ""
    builds: list[str] = field(default_factory=list)
    batch_key: str = ""
    batch_body: dict[str, Any] = field(default_factory=dict)


async def ok(response: httpx.Response, status: int = 200) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    return body


async def populate(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker, agent: str = "newton"
) -> Owned:
    """Give the agent one of everything it can own (see the module's docstring)."""
    owned = Owned(agent, new_marker())
    word, headers, base = owned.marker, tenancy.headers, f"/agents/{agent}"
    identity = {"identity": {"name": f"Newton {word}", "core_rules": [f"Mind the {word}."]}}
    await ok(await client.put(base, json=identity, headers=headers))
    focus = {"current_task": f"Migrate the {word} cluster", "open_threads": [f"{word} backups"]}
    await ok(await client.put(f"{base}/working-memory", json=focus, headers=headers))
    frame = {"description": f"Work on {word}.", "examples": [f"The {word} is down"]}
    await ok(await client.put(f"{base}/frames/incident", json=frame, headers=headers))
    limits = {"max_active_memories": 50}
    await ok(await client.put(f"{base}/retention/limits", json=limits, headers=headers))
    owned.batch_body = {
        "memories": [
            decision(f"Chose PostgreSQL for {word}"),
            {"kind": "fact", "content": f"The {word} cluster runs on three nodes."},
            {"kind": "fact", "content": f"The {word} cluster runs on five nodes now."},
            procedure(f"Restart {word}", f"Drain the {word} queue, then restart."),
            episode(f"{word} outage", 40),
            censor(word, 1, action="block"),
        ]
    }
    owned.batch_key = f"batch-{word}"
    written = await ok(
        await client.post(
            f"{base}/memories/batch",
            json=owned.batch_body,
            headers=headers | {"Idempotency-Key": owned.batch_key},
        ),
        201,
    )
    names = ("decision", "old_fact", "fact", "procedure", "episode", "censor")
    owned.memories = {n: m["id"] for n, m in zip(names, written["memories"], strict=True)}
    memories = owned.memories
    for name, action in (
        ("old_fact", {"action": "supersede", "superseded_by": memories["fact"]}),
        ("decision", {"action": "record_outcome", "outcome": "success", "notes": f"{word}!"}),
    ):
        await ok(await client.patch(f"/memories/{memories[name]}", json=action, headers=headers))
    # The episode is 40 days old: retention trims it (a cold copy and a retention record).
    run = {"now": NOW.isoformat()}
    await ok(await client.post(f"{base}/retention/run", json=run, headers=headers))
    await _converse(client, tenancy, owned)
    await worker.drain()  # vectors, the long message's summary, the effort's summary
    await _build(client, tenancy, owned)
    # Work still queued when the agent is erased: a memory's and the session's.
    fresh = {"kind": "fact", "content": f"The {word} cluster moved to a new rack."}
    queued = await client.post(f"{base}/memories", json=fresh, headers=headers)
    owned.memories["queued"] = (await ok(queued, 201))["id"]
    await _say(client, tenancy, owned, ("user", f"Is the {word} rack labelled?"))
    return owned


async def _say(
    client: httpx.AsyncClient, tenancy: Tenancy, owned: Owned, *messages: tuple[str, str]
) -> None:
    body = {"messages": [{"role": role, "content": content} for role, content in messages]}
    path = f"/agents/{owned.agent}/sessions/{owned.session}/messages"
    await ok(await client.post(path, json=body, headers=tenancy.headers), 201)


async def _converse(client: httpx.AsyncClient, tenancy: Tenancy, owned: Owned) -> None:
    """A session with an appended message, a concluded effort and a long assistant message."""
    word = owned.marker
    await _say(client, tenancy, owned, ("user", f"How do we restart {word}?"))
    efforts = f"/agents/{owned.agent}/sessions/{owned.session}/efforts"
    keyed = tenancy.headers | {"Idempotency-Key": f"effort-{word}"}  # its answer is kept too
    opened = await ok(
        await client.post(efforts, json={"title": f"Restart {word}"}, headers=keyed), 201
    )
    owned.effort = opened["effort_id"]
    long = " ".join(f"Step {n}: check the {word} node logs and its disk." for n in range(80))
    await _say(client, tenancy, owned, ("user", f"Walk me through {word}."), ("assistant", long))
    concluded = f"{efforts}/{owned.effort}/conclude"
    await ok(await client.post(concluded, headers=tenancy.headers))


async def _build(client: httpx.AsyncClient, tenancy: Tenancy, owned: Owned) -> None:
    """A build without the session, one with it and its refresh; feedback and an expand."""
    word, headers = owned.marker, tenancy.headers
    plain = {"agent_id": owned.agent, "input": f"How many nodes does {word} run on?"}
    first = await ok(await client.post("/context/build", json=plain, headers=headers))
    talk = plain | {"session_id": owned.session, "input": f"And the {word} restart?"}
    second = await ok(await client.post("/context/build", json=talk, headers=headers))
    again = {"context_id": second["context_id"], "input": "Decide.", "decision_point": True}
    refreshed = await ok(await client.post("/context/refresh", json=again, headers=headers))
    assert refreshed["refreshed"], refreshed
    owned.builds = [first["context_id"], second["context_id"], refreshed["build"]["context_id"]]
    loaded = [
        item["memory_id"]
        for layer in first["layers"]
        for item in layer["items"]
        if item["kind"] != "censor"
    ]
    feedback = f"/context/{first['context_id']}/feedback"
    await ok(await client.post(feedback, json={"used_memory_ids": loaded[:1]}, headers=headers))
    expand = {"memory_id": owned.memories["fact"], "context_id": first["context_id"]}
    await ok(await client.post("/context/expand", json=expand, headers=headers))
    search = {"arguments": {"query": f"{word} nodes"}}
    keyed = headers | {"Idempotency-Key": f"search-{word}"}  # its answer shows the memories
    tool = f"/agents/{owned.agent}/tools/search_memory"
    assert word in (await ok(await client.post(tool, json=search, headers=keyed)))["content"]


async def rows_holding(connection: AsyncConnection, word: str) -> dict[str, int]:
    """By table, the rows whose text (every column, vectors and documents included) holds the
    word: what is left of the records that carried it."""
    found = {}
    for table in Base.metadata.sorted_tables:
        count = await connection.scalar(
            text(f"SELECT count(*) FROM {table.name} t WHERE strpos(lower(t::text), :word) > 0"),
            {"word": word},
        )
        if count:
            found[table.name] = int(count)
    return found


# The rows an agent owns that hold none of its words, by table: (column, what it names).
_OWNED_ROWS = {
    "agent": "id = :agent",
    "memory": "agent_id = :agent",
    "memory_transition": "memory_id IN (SELECT unnest(CAST(:memories AS uuid[])))",
    "memory_cold": "memory_id IN (SELECT unnest(CAST(:memories AS uuid[])))",
    "retention_change": "agent_id = :agent",
    "retention_limit": "agent_id = :agent",
    "conversation_session": "agent_id = :agent",
    "session_message": "session_id IN (SELECT unnest(CAST(:sessions AS uuid[])))",
    "session_summary": "session_id IN (SELECT unnest(CAST(:sessions AS uuid[])))",
    "session_effort": "session_id IN (SELECT unnest(CAST(:sessions AS uuid[])))",
    "context_build": "agent_id = :agent",
    "job": "agent_id = :agent OR memory_id IN (SELECT unnest(CAST(:memories AS uuid[]))) "
    "OR session_id IN (SELECT unnest(CAST(:sessions AS uuid[])))",
}


async def ids_of(connection: AsyncConnection, tenancy: Tenancy, agent: str) -> dict[str, object]:
    """The row ids of an agent (while it exists): its own, its sessions' and its memories'."""
    agent_id = await connection.scalar(
        text(
            "SELECT a.id FROM agent a JOIN tenant t ON t.id = a.tenant_id "
            "WHERE t.name = :tenant AND a.name = :agent"
        ),
        {"tenant": tenancy.tenant, "agent": agent},
    )
    assert agent_id is not None
    sessions = await connection.scalars(
        text("SELECT id FROM conversation_session WHERE agent_id = :agent"), {"agent": agent_id}
    )
    memories = await connection.scalars(
        text("SELECT id FROM memory WHERE agent_id = :agent"), {"agent": agent_id}
    )
    return {"agent": agent_id, "sessions": list(sessions), "memories": list(memories)}


async def owned_rows(connection: AsyncConnection, ids: dict[str, object]) -> dict[str, int]:
    """By table, how many rows belong to the agent of `ids` (`ids_of`)."""
    counts = {}
    for table, where in _OWNED_ROWS.items():
        count = await connection.scalar(text(f"SELECT count(*) FROM {table} WHERE {where}"), ids)
        counts[table] = int(count or 0)
    return counts


def uuids(values: list[str]) -> list[uuid.UUID]:
    return [uuid.UUID(value) for value in values]
