"""One mapping from the platform's errors to HTTP answers, for every API route: a route
raises what the store or the platform raised, and the client gets a status that says
what happened, with the platform's own sentence as ``detail``. Pages (everything
outside ``/api`` and the OpenAPI document) answer errors with an HTML page instead."""

from __future__ import annotations

from fastapi import FastAPI, Request, status
from fastapi.exception_handlers import (
    http_exception_handler,
    request_validation_exception_handler,
)
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.exceptions import HTTPException

from arena.base.errors import (
    Conflict,
    Forbidden,
    Gone,
    Invalid,
    NotFound,
    Refused,
    TooMany,
    Unauthorized,
)
from arena.engine import RulesError
from arena.platform import PlatformError
from arena.platform.errors import SERVICE_ERRORS, unavailable

#: most specific first
STATUS_OF: tuple[tuple[type[Exception], int], ...] = (
    (Gone, status.HTTP_410_GONE),
    (NotFound, status.HTTP_404_NOT_FOUND),
    (Conflict, status.HTTP_409_CONFLICT),
    (Forbidden, status.HTTP_403_FORBIDDEN),
    (Unauthorized, status.HTTP_401_UNAUTHORIZED),
    (TooMany, status.HTTP_429_TOO_MANY_REQUESTS),
    (Invalid, status.HTTP_400_BAD_REQUEST),
    (Refused, status.HTTP_400_BAD_REQUEST),
    (RulesError, status.HTTP_400_BAD_REQUEST),
    (PlatformError, status.HTTP_503_SERVICE_UNAVAILABLE),
)


def status_of(error: Exception) -> int:
    return next(code for kind, code in STATUS_OF if isinstance(error, kind))


async def _answer(request: Request, error: Exception) -> JSONResponse:
    headers = {"Retry-After": str(error.retry_after)} if isinstance(error, TooMany) else None
    said: dict[str, str] = {"detail": str(error)}
    if isinstance(error, Refused) and error.key is not None:
        said["code"] = error.key  # which refusal, for a client that does not read words
    return JSONResponse(said, status_code=status_of(error), headers=headers)


async def _service_down(request: Request, error: Exception) -> HTMLResponse | JSONResponse:
    detail = unavailable(error)
    if _for_pages(request):
        return _page(status.HTTP_503_SERVICE_UNAVAILABLE, detail)
    return JSONResponse({"detail": detail}, status_code=status.HTTP_503_SERVICE_UNAVAILABLE)


#: what a page says for a status
TITLES = {
    400: "Bad request",
    404: "Not found",
    405: "Not allowed",
    410: "Gone",
    422: "Bad request",
    503: "Unavailable",
}


def _for_pages(request: Request) -> bool:
    path = request.url.path
    return not (path.startswith("/api/") or path == "/openapi.json")


def _page(code: int, detail: str) -> HTMLResponse:
    from dashboard.pages import templates  # the pages' own Jinja environment

    title = TITLES.get(code, "Something went wrong")
    html = templates.get_template("error.html").render(code=code, title=title, detail=detail)
    return HTMLResponse(html, status_code=code)


async def _http_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    if _for_pages(request):
        detail = error.detail if isinstance(error.detail, str) else "no such page"
        return _page(error.status_code, detail)
    return await http_exception_handler(request, error)


async def _bad_query(request: Request, error: Exception) -> Response:
    assert isinstance(error, RequestValidationError)
    if _for_pages(request):
        where = ", ".join(
            ".".join(map(str, e["loc"][1:])) + ": " + e["msg"] for e in error.errors()
        )
        return _page(status.HTTP_400_BAD_REQUEST, f"this address has a bad parameter ({where})")
    return await request_validation_exception_handler(request, error)


def install(app: FastAPI) -> None:
    for kind in (Refused, RulesError, PlatformError):
        app.add_exception_handler(kind, _answer)
    for service in SERVICE_ERRORS:
        app.add_exception_handler(service, _service_down)
    app.add_exception_handler(HTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _bad_query)
