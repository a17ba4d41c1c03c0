"""Health, readiness and Prometheus metrics; no key needed."""

from fastapi import APIRouter, Request, Response
from prometheus_client import CONTENT_TYPE_LATEST

from app.core.db import Database
from app.core.openapi import problems
from app.core.shared_metrics import exposition
from app.ops import service
from app.ops.schemas import Health, Readiness

router = APIRouter(tags=["operations"])


@router.get("/healthz")
async def healthz() -> Health:
    """Liveness: the process answers."""
    return Health()


@router.get("/readyz", responses=problems(503))
async def readyz(request: Request) -> Readiness:
    """Readiness: the database answers and migrations are at head."""
    database: Database = request.app.state.database
    return await service.check_readiness(database, request.app.state.schema_head)


@router.get(
    "/metrics", response_class=Response, responses={200: {"content": {CONTENT_TYPE_LATEST: {}}}}
)
async def metrics(request: Request) -> Response:
    """Prometheus metrics of the service (of all its API processes); served while the database
    is down too."""
    await service.refresh_gauges(request.app.state.database)
    return Response(exposition(), media_type=CONTENT_TYPE_LATEST)
