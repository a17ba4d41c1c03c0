"""A day or month named in the input: parsed, searched, and ranked up."""

from datetime import UTC, datetime

import httpx
import pytest

from app.context.retrieval.periods import mentioned_period
from app.context.types import Period
from app.core.worker import Worker
from tests.factories import Tenancy, put_agent


def _day(year: int, month: int, day: int) -> datetime:
    return datetime(year, month, day, tzinfo=UTC)


@pytest.mark.parametrize(
    "text",
    [
        "What did Maria start on 3 June, 2023?",
        "What did Maria start on June 3, 2023?",
        "What did Maria start on June 3rd 2023?",
        "What did Maria start on the 3rd of June 2023?",
        "What did Maria start on 2023-06-03?",
    ],
)
def test_a_named_day_covers_it_and_the_days_around(text: str) -> None:
    assert mentioned_period(text) == Period(_day(2023, 6, 2), _day(2023, 6, 5))


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("What setback did Melanie face in October 2023?", _day(2023, 10, 1), _day(2023, 11, 1)),
        ("Which workout class did she start in Dec. 2023?", _day(2023, 12, 1), _day(2024, 1, 1)),
        ("Any incident on 31 February 2024?", _day(2024, 2, 1), _day(2024, 3, 1)),
    ],
)
def test_a_named_month_covers_the_month(text: str, start: datetime, end: datetime) -> None:
    assert mentioned_period(text) == Period(start, end)


@pytest.mark.parametrize(
    "text",
    [
        "How many times has Melanie gone to the beach in 2023?",  # a year is too broad
        "May I ask what we decided about caching?",
        "What happened on 13 October?",  # no year and no `now`: which October is unknown
        "What did we change yesterday?",
    ],
)
def test_no_period_without_a_day_or_month_and_its_year(text: str) -> None:
    assert mentioned_period(text) is None


NOW = datetime(2026, 5, 28, 9, 0, tzinfo=UTC)  # a Thursday


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("What happened on 13 October?", _day(2025, 10, 12), _day(2025, 10, 15)),
        ("What was decided on 12 May?", _day(2026, 5, 11), _day(2026, 5, 14)),
        ("Who did I speak with yesterday?", _day(2026, 5, 26), _day(2026, 5, 29)),
        ("What broke 3 days ago?", _day(2026, 5, 24), _day(2026, 5, 27)),
        ("What did Tim and I talk about last week?", _day(2026, 5, 17), _day(2026, 5, 26)),
        ("What did we ship this week?", _day(2026, 5, 24), _day(2026, 6, 2)),
        ("Where did we go last weekend?", _day(2026, 5, 22), _day(2026, 5, 26)),
        ("Which complaints came in last month?", _day(2026, 4, 1), _day(2026, 5, 1)),
        ("What happened in March 2026?", _day(2026, 3, 1), _day(2026, 4, 1)),  # a year wins
        ("What did we do in the week of 9 March 2026?", _day(2026, 3, 8), _day(2026, 3, 17)),
    ],
)
def test_periods_counted_back_from_now(text: str, start: datetime, end: datetime) -> None:
    assert mentioned_period(text, NOW) == Period(start, end)


def test_words_that_name_no_period_name_none_with_now_too() -> None:
    assert mentioned_period("May I ask what we decided about caching?", NOW) is None


async def test_memories_of_the_named_day_come_first(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    await put_agent(client, tenancy, "diary")
    shipped = {
        "2026-03-03": "Shipped the new invoice PDF layout to all customers.",
        "2026-03-10": "Shipped retries with backoff for the payment webhooks.",
        "2026-03-17": "Shipped the Kafka consumer for ledger events.",
        "2026-04-21": "Shipped dark mode in the admin dashboard.",
        "2026-05-05": "Shipped the Terraform module for the search cluster.",
    }
    days = list(shipped)
    notes = [
        {"kind": "episode", "detail": detail, "occurred_at": f"{day}T15:00:00Z"}
        for day, detail in shipped.items()
    ]
    response = await client.post(
        "/agents/diary/memories/batch", headers=tenancy.headers, json={"memories": notes}
    )
    assert response.status_code == 201, response.text
    ids = {day: memory["id"] for day, memory in zip(days, response.json()["memories"], strict=True)}
    await worker.drain()

    async def build(text: str) -> list[dict[str, object]]:
        response = await client.post(
            "/context/build",
            headers=tenancy.headers,
            json={"agent_id": "diary", "input": text, "budget": 400, "now": "2026-06-01T00:00:00Z"},
        )
        assert response.status_code == 200, response.text
        return [item for layer in response.json()["layers"] for item in layer["items"]]

    items = await build("What did we ship on 17 March 2026?")
    best = max(items, key=lambda item: item["score"])  # type: ignore[arg-type, return-value]
    assert best["memory_id"] == ids["2026-03-17"]
    assert best["components"]["period"] == 1.0  # type: ignore[index]
    assert all(i["components"]["period"] == 0.0 for i in items if i is not best)  # type: ignore[index]

    in_march = await build("What did we ship in March 2026?")
    from_march = {i["memory_id"] for i in in_march if i["components"]["period"] == 1.0}  # type: ignore[index]
    assert from_march == {ids["2026-03-03"], ids["2026-03-10"], ids["2026-03-17"]}
