"""HTTP routes of the inspector: HTML pages, kept out of the OpenAPI document."""

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from app.core.db import DbSession
from app.core.errors import Unauthorized
from app.deps import SettingsDep
from app.inspect import service
from app.inspect.dependencies import COOKIE, HOME, PageTenant, SameOrigin, page_id
from app.inspect.pages import LOGIN_PATH, SECURITY_HEADERS, render
from app.memories.dependencies import MemoryCtx
from app.tenants.service import authenticate

router = APIRouter(prefix=HOME, include_in_schema=False)


@router.get("")
async def agents_page(request: Request, session: DbSession, tenant: PageTenant) -> HTMLResponse:
    """The tenant's agents."""
    agents = await service.list_agents(session, tenant)
    return render(request, "agents.html", {"tenant": tenant.name, "agents": agents})


@router.get("/login")
async def login_page(request: Request) -> HTMLResponse:
    """The login form."""
    return render(request, "login.html", {"error": None})


@router.post("/login", response_model=None, dependencies=[SameOrigin])
async def log_in(
    request: Request, session: DbSession, key: Annotated[str, Form(max_length=200)] = ""
) -> HTMLResponse | RedirectResponse:
    """Check the key as the API does; keep it in an HttpOnly, same-site cookie."""
    if not key.strip():
        return render(request, "login.html", {"error": "Enter an API key."}, status_code=401)
    try:
        await authenticate(session, key)
    except Unauthorized as exc:
        return render(request, "login.html", {"error": exc.detail}, status_code=401)
    response = RedirectResponse(HOME, status_code=303, headers=SECURITY_HEADERS)
    response.set_cookie(
        COOKIE,
        key.strip(),
        path=HOME,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
    return response


@router.post("/logout", dependencies=[SameOrigin])
async def log_out() -> RedirectResponse:
    """Forget the key."""
    response = RedirectResponse(LOGIN_PATH, status_code=303, headers=SECURITY_HEADERS)
    response.delete_cookie(COOKIE, path=HOME, httponly=True, samesite="strict")
    return response


@router.get("/agents/{agent_name}")
async def agent_page(
    agent_name: str, request: Request, session: DbSession, tenant: PageTenant, ctx: MemoryCtx
) -> HTMLResponse:
    """An agent's recent builds and memories."""
    agent = await service.agent_page(session, ctx, tenant, agent_name)
    return render(request, "agent.html", {"agent": agent})


@router.get("/builds/{build_id}")
async def build_page(
    build_id: str, request: Request, session: DbSession, tenant: PageTenant
) -> HTMLResponse:
    """One build: its context, layers, items with their scores, what was left out, timings."""
    page = await service.build_page(session, tenant, page_id(build_id))
    return render(request, "build.html", {"page": page})


@router.get("/memories/{memory_id}")
async def memory_page(
    memory_id: str, request: Request, session: DbSession, tenant: PageTenant, ctx: MemoryCtx
) -> HTMLResponse:
    """One memory: its three representations, its lifecycle and the builds it was in."""
    page = await service.memory_page(session, ctx, tenant, page_id(memory_id))
    return render(request, "memory.html", {"page": page})


@router.get("/agents/{agent_name}/sessions/{session_name}")
async def session_page(
    agent_name: str,
    session_name: str,
    request: Request,
    session: DbSession,
    tenant: PageTenant,
    settings: SettingsDep,
) -> HTMLResponse:
    """One session: its latest messages and what the latest build kept of each, its efforts."""
    page = await service.session_page(session, tenant, agent_name, session_name, settings)
    return render(request, "session.html", {"page": page, "agent": agent_name})
