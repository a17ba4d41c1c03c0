"""The inspector on the service: its pages, stylesheet and error pages."""

from fastapi import FastAPI, Request
from fastapi.responses import RedirectResponse, Response
from fastapi.staticfiles import StaticFiles

from app.inspect.pages import HERE, LOGIN_PATH, SECURITY_HEADERS, LoginRequired, render, templates
from app.inspect.router import router
from app.inspect.service import PageNotFound


async def _not_found(request: Request, exc: Exception) -> Response:
    return render(request, "not_found.html", {"detail": str(exc)}, status_code=404)


async def _login_required(request: Request, exc: Exception) -> Response:
    return RedirectResponse(LOGIN_PATH, status_code=303, headers=SECURITY_HEADERS)


def install_inspector(app: FastAPI) -> None:
    """Serve the inspector's pages and stylesheet on `app` (none of it in the OpenAPI document)."""
    app.state.inspect_templates = templates()
    app.add_exception_handler(PageNotFound, _not_found)
    app.add_exception_handler(LoginRequired, _login_required)
    app.mount("/inspect/static", StaticFiles(directory=HERE / "static"), name="inspect-static")
    app.include_router(router)
