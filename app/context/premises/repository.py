"""SQL of the premise check: the facts a build's search leaves out (invalidated, superseded)
that a premise may rest on."""

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import JsonValue
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from app.memories.lifecycle import UNSEARCHABLE

_RETIRED_LIMIT = 20
# The agent's facts in a state the search leaves out that hold any of the words (as PostgreSQL
# stems them), best text match first; each with the fact that replaced it, if one did.
_RETIRED = (
    "SELECT m.id, m.micro, m.state, s.id AS successor_id, s.micro AS successor "
    "FROM memory m LEFT JOIN memory s ON s.id = m.superseded_by "
    "CROSS JOIN LATERAL to_tsquery('english', array_to_string(ARRAY(SELECT quote_literal(w) "
    "FROM unnest(CAST(:words AS text[])) w), ' | ')) AS q "
    "WHERE m.agent_id = :agent AND m.kind = 'fact' AND m.state = ANY(:states) "
    "AND m.search_document @@ q {metadata}"
    "ORDER BY ts_rank(m.search_document, q) DESC, m.id LIMIT :limit"
)


@dataclass(frozen=True)
class RetiredFact:
    """A fact proven wrong (`inactive`) or replaced (`superseded`), and its successor."""

    memory_id: uuid.UUID
    text: str
    state: str
    successor_id: uuid.UUID | None
    successor: str | None


class PremiseRepository:
    """The premise check's one statement, for one session."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def retired_facts(
        self, agent_id: uuid.UUID, words: Sequence[str], metadata: dict[str, JsonValue] | None
    ) -> list[RetiredFact]:
        """The agent's invalidated and superseded facts that hold any of `words`."""
        bound: dict[str, object] = {
            "agent": agent_id,
            "words": list(words),
            "states": list(UNSEARCHABLE["fact"]),
            "limit": _RETIRED_LIMIT,
        }
        condition = ""
        if metadata:
            condition = "AND m.metadata @> CAST(:metadata AS jsonb) "
            bound["metadata"] = json.dumps(metadata)
        rows = await self.session.execute(text(_RETIRED.format(metadata=condition)), bound)
        return [RetiredFact(*row) for row in rows]
