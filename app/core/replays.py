"""Stored responses of idempotent requests that show what an erasure takes away.

A request sent with an Idempotency-Key keeps its first response to replay it on a retry
(`app.core.idempotency`). A response that shows an erased agent's or session's records (the
memories written, the messages appended, a build) would be replayed after the erasure, and show
them again: such a record goes with them, and a retry of its request then runs anew, against
what is stored then (404 while the agent does not exist).

Which responses those are is read from the request's path and the responses themselves. An
agent's: its request was to one of the agent's routes (`/agents/{agent_id}/...`), or any object
in the response names it (`agent_id`, as memories, sessions and builds do). A session's: its
request was to one of the session's routes, or an object names the agent and the session
(`session_id`), or one of the session's builds (`context_id`). Names are unique (an agent's in
its tenant, a session's in its agent): no other record matches.
"""

import uuid
from collections.abc import Sequence

from sqlalchemy import bindparam, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.ext.asyncio import AsyncSession

_OF_AGENT = text(
    "DELETE FROM idempotency_record WHERE tenant_id = :tenant AND ("
    "starts_with(target, :path) OR (response IS NOT NULL "
    "AND jsonb_path_exists(response::jsonb, '$.** ? (@.agent_id == $agent)', :names)))"
).bindparams(bindparam("names", type_=JSONB))
_OF_SESSION = text(
    "DELETE FROM idempotency_record WHERE tenant_id = :tenant AND ("
    "starts_with(target, :path) OR (response IS NOT NULL AND (jsonb_path_exists(response::jsonb, "
    "'$.** ? (@.agent_id == $agent && @.session_id == $session)', :names) "
    "OR jsonb_path_exists(response::jsonb, '$.** ? (@.context_id == $builds[*])', :names))))"
).bindparams(bindparam("names", type_=JSONB))


class ReplayRepository:
    """The SQL that drops stored responses of erased records."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def forget_agent(self, tenant_id: uuid.UUID, agent_name: str) -> None:
        """Drop the stored responses that name the agent."""
        names = {"agent": agent_name}
        path = f"/agents/{agent_name}/"
        await self.session.execute(_OF_AGENT, {"tenant": tenant_id, "names": names, "path": path})

    async def forget_session(
        self,
        tenant_id: uuid.UUID,
        agent_name: str,
        session_name: str,
        build_ids: Sequence[uuid.UUID],
    ) -> None:
        """Drop the stored responses that name the agent's session or one of its builds."""
        names = {
            "agent": agent_name,
            "session": session_name,
            "builds": [str(build_id) for build_id in build_ids],
        }
        path = f"/agents/{agent_name}/sessions/{session_name}/"
        bound = {"tenant": tenant_id, "names": names, "path": path}
        await self.session.execute(_OF_SESSION, bound)
