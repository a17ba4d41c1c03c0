"""The inspector on the service: its pages, stylesheet and error pages."""

from fastapi import FastAPI, Request
from fastapi.responses import RedirectResponse, Response
from fastapi.staticfiles import StaticFiles

from app.inspect.dependencies import COOKIE, HOME
from app.inspect.errors import CrossSiteForm, LoginRequired, PageNotFound
from app.inspect.pages import HERE, LOGIN_PATH, SECURITY_HEADERS, render, templates
from app.inspect.router import router


async def _not_found(request: Request, exc: Exception) -> Response:
    return render(request, "problem.html", {"title": "Not found", "detail": str(exc)}, 404)


async def _cross_site(request: Request, exc: Exception) -> Response:
    detail = "This form was sent from another site's page; log in from this page instead."
    return render(request, "problem.html", {"title": "Refused", "detail": detail}, 403)


async def _login_required(request: Request, exc: Exception) -> Response:
    response = RedirectResponse(LOGIN_PATH, status_code=303, headers=SECURITY_HEADERS)
    if COOKIE in request.cookies:  # a key revoked since the login: the browser forgets it
        response.delete_cookie(COOKIE, path=HOME, httponly=True, samesite="strict")
    return response


def install_inspector(app: FastAPI) -> None:
    """Serve the inspector's pages and stylesheet on `app` (none of it in the OpenAPI document)."""
    app.state.inspect_templates = templates()
    app.add_exception_handler(PageNotFound, _not_found)
    app.add_exception_handler(LoginRequired, _login_required)
    app.add_exception_handler(CrossSiteForm, _cross_site)
    app.mount("/inspect/static", StaticFiles(directory=HERE / "static"), name="inspect-static")
    app.include_router(router)
