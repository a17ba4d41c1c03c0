"""An effort whose messages are all the session's sinks is in the history raw already: a build
shows it once, as those messages, not also as its summary."""

import httpx

from app.core.worker import Worker
from app.providers.container import Providers
from tests.efforts.helpers import act, build, open_effort, say, shown
from tests.factories import Tenancy, put_agent


async def test_an_effort_of_the_sinks_is_shown_once(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker, providers: Providers
) -> None:
    await put_agent(client, tenancy)
    await open_effort(client, tenancy, "Ledger migration")
    opening = ("user", "Move the ledger tables with pgloader tonight.")
    await say(client, tenancy, opening, ("assistant", "Done: the ledger tables are moved."))
    assert (await act(client, tenancy, "e_1", "conclude")).status_code == 200
    await worker.drain()
    await say(client, tenancy, *[("user", f"Unrelated question {n}.") for n in range(6)])

    result = await build(client, tenancy, providers, sinks=2, fresh_tail=1)
    said = [m["content"] for m in result["messages"]]
    assert said[:2] == [opening[1], "Done: the ledger tables are moved."]
    assert "[effort e_1" not in result["context"]  # not its summary as well
    assert shown(result)["e_1"] == "raw"

    # Past the sinks, the effort is shown by its summary, its messages gone from the history.
    result = await build(client, tenancy, providers, sinks=1, fresh_tail=1)
    assert "[effort e_1 concluded: Ledger migration]" in result["context"]
    assert shown(result)["e_1"] == "summary"
