"""`python -m app mcp` without --url: the service runs inside the MCP process, on the
configured database (here the suite's), with the given key or the data directory's."""

from pathlib import Path

import pytest

from tests.factories import Tenancy, fact
from tests.mcp.conftest import Service, stdio_client
from tests.mcp.test_tools import call, marker, unique
from tests.process.launcher import cli

pytestmark = pytest.mark.committed


async def test_local_service_over_stdio(service: Service, tenancy_a: Tenancy, agent: str) -> None:
    content = unique("Backups are restored quarterly as a drill.")
    async with stdio_client(service)(tenancy_a.key) as mcp:
        written = await call(mcp, "remember", agent_id=agent, memory=fact(content))
        built = await call(
            mcp, "build_context", agent_id=agent, input=f"Backup drills ({marker(content)})?"
        )
    assert written["memory_id"] in {item["memory_id"] for item in built["memories"]}
    assert "restored quarterly" in built["context"]


def test_local_service_without_a_key_says_how_to_get_one(service: Service, tmp_path: Path) -> None:
    # The database has keys already, so none is issued into this new data directory.
    env = dict(service.env, CE_DATA_DIR=str(tmp_path))
    done = cli(env, "mcp")
    assert done.returncode == 2, done.stderr
    assert "python -m app keys create" in done.stderr
    assert done.stdout == ""


def test_url_needs_a_key(service: Service) -> None:
    done = cli(service.env, "mcp", "--url", service.url)
    assert done.returncode == 2
    assert "--url needs the key" in done.stderr
    assert "CE_API_KEY" in done.stderr
