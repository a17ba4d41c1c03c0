"""The authenticated tenant of a request."""

from typing import Annotated

from fastapi import Depends
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.core.db import DbSession
from app.tenants.models import Tenant
from app.tenants.service import authenticate

bearer_scheme = HTTPBearer(auto_error=False, description="An API key of your tenant.")


async def current_tenant(
    session: DbSession,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer_scheme)],
) -> Tenant:
    """Resolve the bearer key to its tenant."""
    return await authenticate(session, credentials.credentials if credentials else None)


CurrentTenant = Annotated[Tenant, Depends(current_tenant)]
