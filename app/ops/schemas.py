"""Bodies of the health and readiness probes."""

from typing import Literal

from pydantic import BaseModel


class Health(BaseModel):
    status: Literal["ok"] = "ok"


class Readiness(BaseModel):
    status: Literal["ready"] = "ready"
    database: Literal["reachable"] = "reachable"
    migrations: Literal["at_head"] = "at_head"
