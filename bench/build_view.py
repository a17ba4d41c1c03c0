"""What the benchmarks read of a build's response, leniently: unknown fields are ignored, so
the same reader measures the service of an older commit (`--commit`) as well as this one."""

import uuid

from pydantic import BaseModel, ConfigDict


class _Read(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ItemView(_Read):
    memory_id: uuid.UUID
    kind: str  # read as text: a service that lists censors as items is read the same way
    detail: str


class LayerView(_Read):
    name: str
    items: list[ItemView] = []


class TotalsView(_Read):
    budget: int
    used: int
    encoding: str


class BuildView(_Read):
    """The parts of a build's response that the benchmark reads."""

    context: str
    layers: list[LayerView]
    totals: TotalsView
    timings_ms: dict[str, float] = {}
