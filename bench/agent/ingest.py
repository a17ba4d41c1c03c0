"""Loading a typed-memory benchmark file into the service: agents, memories, then patches."""

import uuid
from dataclasses import dataclass, field

from pydantic import JsonValue

from bench.agent.data import AgentSpec, resolve_patch
from bench.common.client import BATCH_MAX, ApiClient, ApiError
from bench.common.ingest import Progress, progress


@dataclass
class AgentIngest:
    """The id of each written memory by key, and what the service refused."""

    ids: dict[str, uuid.UUID] = field(default_factory=dict)
    rejected: dict[str, str] = field(default_factory=dict)  # key -> error
    patch_errors: list[str] = field(default_factory=list)

    def key_of(self) -> dict[uuid.UUID, str]:
        return {memory_id: key for key, memory_id in self.ids.items()}


async def _setup_agent(api: ApiClient, agent: AgentSpec) -> None:
    """Identity and model through PUT /agents/{id}; working memory through its own route."""
    body: dict[str, JsonValue] = {"identity": agent.identity}
    if agent.model:
        body["model"] = agent.model
    await api.upsert_agent(agent.agent_id, body)
    if agent.working_memory:
        await api.put_working_memory(agent.agent_id, agent.working_memory)


async def _write_memories(
    api: ApiClient, agent: AgentSpec, done: AgentIngest, bar: Progress
) -> None:
    """Write in file order, 100 a request; a refused batch is written one by one, so one bad
    body costs only itself (and is reported)."""
    specs = agent.memories
    for start in range(0, len(specs), BATCH_MAX):
        batch = specs[start : start + BATCH_MAX]
        try:
            stored = await api.write_batch(agent.agent_id, [m.body for m in batch])
            done.ids.update({m.key: r.id for m, r in zip(batch, stored, strict=True)})
        except ApiError:
            for spec in batch:
                try:
                    done.ids[spec.key] = (await api.write_one(agent.agent_id, spec.body)).id
                except ApiError as error:
                    done.rejected[spec.key] = str(error)
        bar.update(len(batch))


async def _apply_patches(api: ApiClient, agent: AgentSpec, done: AgentIngest) -> None:
    """Every patch in file order, with the keys it names replaced by the ids written."""
    ids = {key: str(memory_id) for key, memory_id in done.ids.items()}
    for spec in agent.memories:
        memory_id = done.ids.get(spec.key)
        if memory_id is None:
            continue
        for patch in spec.patches:
            try:
                await api.patch_memory(memory_id, resolve_patch(patch, ids))
            except ApiError as error:
                done.patch_errors.append(
                    f"{agent.agent_id}/{spec.key} {patch.get('action')}: {error}"
                )


async def ingest(api: ApiClient, agents: list[AgentSpec]) -> dict[str, AgentIngest]:
    """Every agent of the file, its memories and their patches; per agent what was written."""
    result: dict[str, AgentIngest] = {}
    total = sum(len(agent.memories) for agent in agents)
    with progress(total, "write memories", "mem") as bar:
        for agent in agents:
            done = AgentIngest()
            await _setup_agent(api, agent)
            await _write_memories(api, agent, done, bar)
            await _apply_patches(api, agent, done)
            result[agent.agent_id] = done
    for agent_id, done in result.items():
        for key, error in done.rejected.items():
            print(f"warning: {agent_id}/{key} refused: {error}")
        for error in done.patch_errors:
            print(f"warning: patch refused: {error}")
    return result
