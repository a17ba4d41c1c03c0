"""The process's censor cache: the same set for every build while no censor changes."""

import uuid

from app.context.retrieval.censor_cache import CensorCache
from app.context.types import Censor


def _censor(pattern: str) -> Censor:
    return Censor(uuid.uuid4(), "warn", pattern, "a reason")


def test_a_build_gets_the_set_it_had_until_a_censor_changes() -> None:
    cache, agent = CensorCache(), uuid.uuid4()
    wipe, force = _censor("rm -rf"), _censor("git push --force")
    order = [(wipe.memory_id, 1), (force.memory_id, 1)]
    first = cache.keep(agent, {}, order, {wipe.memory_id: (1, wipe), force.memory_id: (1, force)})
    assert list(first) == [wipe, force]
    known = cache.known(agent)
    assert cache.keep(agent, known, order, {}) is first  # nothing new: the same set
    edited = Censor(wipe.memory_id, "block", "rm -rf", "a reason")
    changed = cache.keep(
        agent, known, [(wipe.memory_id, 2), order[1]], {wipe.memory_id: (2, edited)}
    )
    assert list(changed) == [edited, force]
    retired = cache.keep(agent, cache.known(agent), [order[1]], {})
    assert list(retired) == [force]
    cache.forget(agent)
    assert cache.known(agent) == {}
