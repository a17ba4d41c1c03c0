"""Fifty memories of each kind from the same engineering team as the worked example, none of
them about Newton: the other services (billing, search, the mobile API, CI, the warehouse,
observability), other databases and queues, other decisions about infrastructure, their
incidents, runbooks and rules. Many name Postgres, caching, backups, dashboards or Tim; a
careful curator still loads none of them for a question about caching in Newton.

Each memory is one record, its fields separated by " | " (lists within a field by "; " or ", ").
"""

from typing import Any

from tests.context.team_records.decisions_facts import DECISIONS, FACTS
from tests.context.team_records.episodes_censors import CENSORS, EPISODES
from tests.context.team_records.procedures import PRACTICES, RUNBOOKS


def domain_distractors() -> list[dict[str, Any]]:
    """250 memory bodies, 50 of each kind, interleaved as an agent would have written them."""
    procedures = [_procedure(record, "steps") for record in RUNBOOKS] + [
        _procedure(record, "core_patterns") for record in PRACTICES
    ]
    kinds = zip(
        map(_decision, DECISIONS),
        ({"kind": "fact", "content": content} for content in FACTS),
        procedures,
        map(_episode, EPISODES),
        map(_censor, CENSORS),
        strict=True,
    )
    return [body for written_together in kinds for body in written_together]


def _decision(record: str) -> dict[str, Any]:
    head, decision, reason = record.split(" | ")
    confidence, outcome = head.split()
    return {
        "kind": "decision",
        "decision": decision,
        "reasons": [reason],
        "confidence": float(confidence),
        "outcome": outcome,
    }


def _procedure(record: str, items: str) -> dict[str, Any]:
    name, domain, description, listed = record.split(" | ")
    return {
        "kind": "procedure",
        "name": name,
        "domain": domain,
        "description": description,
        items: listed.split("; "),
    }


def _episode(record: str) -> dict[str, Any]:
    started, ended, participants, title, detail = record.split(" | ")
    body: dict[str, Any] = {
        "kind": "episode",
        "detail": detail,
        "participants": participants.split(", ") if participants != "-" else [],
    }
    if title != "-":
        body["title"] = title
    for key, when in (("started_at", started), ("ended_at", ended)):
        if when != "-":
            body[key] = when.replace(" ", "T") + ":00Z"
    return body


def _censor(record: str) -> dict[str, Any]:
    head, pattern, reason = record.split(" | ")
    action, domain = head.split()
    return {
        "kind": "censor",
        "trigger_pattern": pattern,
        "reason": reason,
        "action": action,
        "domain": domain,
    }
