"""An erased memory's text leaves a stored build, every other line kept: pure."""

import uuid
from datetime import UTC, datetime
from typing import Any

from app.context.followups.scrub import ERASED_NOTE, ErasedMemory, scrub, shown_blocks
from app.context.schemas import ContextBuildResponse

ERASED_AT = datetime(2026, 11, 27, 9, 30, tzinfo=UTC)
PARTS = dict.fromkeys(
    ("semantic", "lexical", "frame", "recency", "outcome", "usage", "confidence", "adjacency"),
    0.5,
)


def item(memory_id: uuid.UUID, kind: str, detail: str = "summary") -> dict[str, Any]:
    return {
        "memory_id": memory_id,
        "kind": kind,
        "detail": detail,
        "tokens": 10,
        "score": 0.5,
        "components": PARTS,
        "reason": "meaning",
    }


def stored(
    context: str, layers: dict[str, list[dict[str, Any]]], **more: Any
) -> ContextBuildResponse:
    return ContextBuildResponse.model_validate(
        {
            "context_id": uuid.uuid4(),
            "agent_id": "newton",
            "context": context,
            "frame": {"name": "decision", "confidence": 1.0, "source": "selected", "scores": {}},
            "layers": [
                {"name": name, "budget": 100, "used": 10, "items": items}
                for name, items in layers.items()
            ],
            "left_out": [],
            "totals": {
                "budget": 1000,
                "budget_source": "request",
                "used": 100,
                "utilization": 0.1,
                "encoding": "o200k_base",
                "candidates": 5,
            },
            "relevance": None,
            "timings_ms": {},
            "created_at": ERASED_AT,
            **more,
        }
    )


def erased(
    memory_id: uuid.UUID, kind: str, *shown: tuple[str, str], full: str = ""
) -> ErasedMemory:
    return ErasedMemory(memory_id, kind, ERASED_AT, shown, full)


def test_an_item_is_found_by_its_place_whatever_it_read_then() -> None:
    first, wrong, last = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    # The identity is the user's text: a section that looks like the decisions' is not theirs.
    context = (
        "## Identity\nNewton.\n\n## Relevant Past Decisions\n- Written by the user.\n\n"
        "## Relevant Past Decisions\n- Chose Postgres [success, 0.80]\n"
        '- Chose Kafka [pending, 0.70] — "Alice asked\n  for it"\n- Chose one pool [failure, 0.60]'
        "\n\n## Note\nRecent accuracy: 50%."
    )
    build = stored(
        context,
        {"decisions": [item(first, "decision"), item(wrong, "decision"), item(last, "decision")]},
    )
    # The outcome was amended since: the text it shows now is not the one stored.
    now = shown_blocks("decision", "Chose Kafka [failure, 0.70]", "Chose Kafka [failure, 0.70]", {})
    result = scrub(build, erased(wrong, "decision", *now))
    assert result.context == (
        "## Identity\nNewton.\n\n## Relevant Past Decisions\n- Written by the user.\n\n"
        "## Relevant Past Decisions\n- Chose Postgres [success, 0.80]\n- [erased]\n"
        "- Chose one pool [failure, 0.60]\n\n## Note\nRecent accuracy: 50%."
    )
    assert [(e.memory_id, e.kind, e.erased_at) for e in result.erased] == [
        (wrong, "decision", ERASED_AT)
    ]
    assert result.layers == build.layers
    # A second erasure in the same build keeps the first one's marks.
    again = scrub(result, erased(last, "decision"))
    assert again.context.count("- [erased]") == 2
    assert [e.memory_id for e in again.erased] == [wrong, last]


def test_an_excerpt_on_the_timeline_is_found_by_its_passages() -> None:
    episode, other = uuid.uuid4(), uuid.uuid4()
    full = (
        "Alice Moreau called about the invoices. She asked for the billing run to move to "
        "Mondays because her team closes the books on Fridays."
    )
    context = (
        "## Past Experience\nOn 3 March 2026:\n"
        "- Alice Moreau called about the invoices. … billing run to move to Mondays because\n"
        "- Vacuum incident — the disk filled up\nOn 4 March 2026:\n- Disk swap"
    )
    build = stored(
        context, {"episodes": [item(episode, "episode", "excerpt"), item(other, "episode")]}
    )
    result = scrub(build, erased(episode, "episode", full=full))
    assert result.context == (
        "## Past Experience\nOn 3 March 2026:\n- [erased]\n"
        "- Vacuum incident — the disk filled up\nOn 4 March 2026:\n- Disk swap"
    )


def test_a_procedure_section_and_a_premise_note_that_quotes_it_go() -> None:
    deploy = uuid.uuid4()
    fields = {"name": "Deploy billing", "description": "Ask Alice first."}
    note = "Note: memory says otherwise of the premise that we deploy on Fridays: Ask Alice first."
    premise = {
        "text": "we deploy on Fridays",
        "status": "contradicted",
        "memory_ids": [deploy],
        "note": note,
        "in_context": True,
    }
    context = f"## Identity\nNewton.\n\n## Procedure: Deploy billing\nAsk Alice first.\n\n{note}"
    build = stored(context, {"procedures": [item(deploy, "procedure")]}, premises=[premise])
    shown = shown_blocks(
        "procedure", "Deploy billing: Ask Alice first.", "Ask Alice first.", fields
    )
    result = scrub(build, erased(deploy, "procedure", *shown))
    assert result.context == (f"## Identity\nNewton.\n\n## Procedure: [erased]\n\n{ERASED_NOTE}")
    assert result.premises[0].note == ERASED_NOTE


def test_only_whole_lines_that_read_as_the_memory_are_taken() -> None:
    fact = uuid.uuid4()
    context = (
        "## Known Information\n- Uses Postgres.\n- Uses Postgres. And Redis.\n- Uses Postgres."
    )
    build = stored(
        context,
        {"facts": []},
        left_out=[{"memory_id": fact, "kind": "fact", "reason": "score", "score": 0.1}],
    )
    shown = shown_blocks("fact", "Uses Postgres.", "Uses Postgres.", {"content": "Uses Postgres."})
    result = scrub(build, erased(fact, "fact", *shown))
    assert (
        result.context
        == "## Known Information\n- [erased]\n- Uses Postgres. And Redis.\n- [erased]"
    )
    assert result.left_out == build.left_out
    assert [e.memory_id for e in result.erased] == [fact]
