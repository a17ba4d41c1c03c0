"""The vectors of appended user messages, shared by the API processes: the append embeds the
message a build is about to take as its input and keeps its vectors here (the table
`InputVector`), so that the build finds them whichever process it lands on. Kept a few minutes
(an unlogged table: a crash empties it, and a build then embeds its input again); an erased
session's go with it."""

import hashlib
import uuid
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta

import numpy as np
from numpy.typing import NDArray
from sqlalchemy import delete, func, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession

from app.providers.query_vectors import QueryVectors
from app.sessions.models import InputVector

KEPT_FOR = timedelta(minutes=10)  # an agent builds right after it appends


@dataclass(frozen=True)
class InputEmbedders:
    """The models an input is embedded with for a build (the search model's and the rescoring
    one's), and how long an append waits for them."""

    models: Sequence[QueryVectors]  # the search model's first
    deadline: float

    def as_document(self, vectors: Mapping[str, NDArray[np.float32]]) -> NDArray[np.float32] | None:
        """The search model's vector, where its query vector is the text's document vector."""
        search = self.models[0] if self.models else None
        if search is None or not search.queries_as_documents:
            return None
        return vectors.get(search.model_name)

    def start(self, tenant_id: uuid.UUID, text: str) -> None:
        """Start embedding the text with each, unless kept already."""
        for model in self.models:
            model.prefetch(tenant_id, text)


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()


class InputVectorRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def keep(
        self,
        tenant_id: uuid.UUID,
        session_id: uuid.UUID,
        text: str,
        vectors: Mapping[str, NDArray[np.float32]],
    ) -> None:
        """Keep the text's vectors by model, and let those kept too long go."""
        if not vectors:
            return
        await self.session.execute(
            delete(InputVector).where(InputVector.created_at < func.now() - KEPT_FOR)
        )
        digest = _digest(text)
        rows = [
            {
                "tenant_id": tenant_id,
                "model": model,
                "digest": digest,
                "session_id": session_id,
                "vector": np.asarray(vector, dtype="<f4").tobytes(),
            }
            for model, vector in vectors.items()
        ]
        statement = pg_insert(InputVector).values(rows)
        await self.session.execute(
            statement.on_conflict_do_update(
                index_elements=["tenant_id", "model", "digest"],
                set_={
                    "vector": statement.excluded.vector,
                    "session_id": statement.excluded.session_id,
                    "created_at": func.now(),
                },
            )
        )

    async def find(
        self, tenant_id: uuid.UUID, text: str, models: Collection[str]
    ) -> dict[str, NDArray[np.float32]]:
        """The text's kept vectors, by model."""
        rows = await self.session.execute(
            select(InputVector.model, InputVector.vector).where(
                InputVector.tenant_id == tenant_id,
                InputVector.digest == _digest(text),
                InputVector.model.in_(models),
                InputVector.created_at >= func.now() - KEPT_FOR,
            )
        )
        return {model: np.frombuffer(vector, dtype="<f4").copy() for model, vector in rows}
