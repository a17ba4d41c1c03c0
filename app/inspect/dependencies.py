"""Request dependencies of the inspector: the tenant of the login cookie, ids from paths."""

import uuid
from typing import Annotated

from fastapi import Depends, Request

from app.core.db import DbSession
from app.core.errors import Unauthorized
from app.inspect.errors import CrossSiteForm, LoginRequired, PageNotFound
from app.tenants.models import Tenant
from app.tenants.service import authenticate

COOKIE = "ce_inspect"
HOME = "/inspect"  # the cookie's path: sent to the inspector's pages only


async def _page_tenant(request: Request, session: DbSession) -> Tenant:
    """The tenant of the key in the login cookie, checked as the API checks a bearer key."""
    key = request.cookies.get(COOKIE)
    if not key:
        raise LoginRequired()
    try:
        return await authenticate(session, key)
    except Unauthorized as exc:  # revoked since the login: log in again
        raise LoginRequired() from exc


async def _same_origin(request: Request) -> None:
    """Forms of these pages only. A browser says where a form comes from in Sec-Fetch-Site,
    which a proxy that rewrites Host leaves true; one that does not send it, in Origin."""
    site = request.headers.get("sec-fetch-site")
    if site is not None:
        if site not in ("same-origin", "none"):  # none: typed in or bookmarked
            raise CrossSiteForm(site)
        return
    origin = request.headers.get("origin")
    if origin is not None and origin != str(request.base_url).rstrip("/"):
        raise CrossSiteForm(origin)


def page_id(value: str) -> uuid.UUID:
    """An id from a page's path; anything else names no page (404, not a validation error)."""
    try:
        return uuid.UUID(value)
    except ValueError as exc:
        raise PageNotFound(f"'{value}' is not an id.") from exc


PageTenant = Annotated[Tenant, Depends(_page_tenant)]
SameOrigin = Depends(_same_origin)
