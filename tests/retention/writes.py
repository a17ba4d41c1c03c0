"""Writing memories of a given age and running retention, over HTTP."""

from datetime import datetime, timedelta
from typing import Any

import httpx

from tests.factories import Tenancy, write

NOW = datetime.fromisoformat("2027-03-01T12:00:00+00:00")


def days_before(days: float, now: datetime = NOW) -> str:
    return (now - timedelta(days=days)).isoformat()


def episode(title: str, days_old: float, now: datetime = NOW, **extra: Any) -> dict[str, Any]:
    detail = (
        f"{title} began with a long look at the logs. The on-call engineer paged the storage "
        "team at 03:10. Disk latency on the primary went past 900 ms while the nightly vacuum "
        "ran. The replica lagged four minutes behind. We moved the vacuum to Sunday noon and "
        "added an alert on replication lag above thirty seconds."
    )
    return {
        "kind": "episode",
        "title": title,
        "summary": f"{title}: the nightly vacuum slowed the primary; moved to Sunday.",
        "detail": detail,
        "occurred_at": days_before(days_old, now),
        **extra,
    }


def censor(trigger: str, days_old: float, action: str = "warn") -> dict[str, Any]:
    return {
        "kind": "censor",
        "trigger_pattern": trigger,
        "reason": f"{trigger} broke production before",
        "action": action,
        "occurred_at": days_before(days_old),
    }


async def write_all(
    client: httpx.AsyncClient, tenancy: Tenancy, bodies: dict[str, dict[str, Any]]
) -> dict[str, str]:
    """Write each body; the memory ids by name."""
    return {name: (await write(client, tenancy, body))["id"] for name, body in bodies.items()}


async def run(
    client: httpx.AsyncClient, tenancy: Tenancy, agent: str = "newton", **body: Any
) -> dict[str, Any]:
    response = await client.post(
        f"/agents/{agent}/retention/run", json=body, headers=tenancy.headers
    )
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


async def states(
    client: httpx.AsyncClient, tenancy: Tenancy, ids: dict[str, str]
) -> dict[str, str]:
    """Each memory's state, by name."""
    found = {}
    for name, memory_id in ids.items():
        response = await client.get(f"/memories/{memory_id}", headers=tenancy.headers)
        assert response.status_code == 200, response.text
        found[name] = response.json()["state"]
    return found
