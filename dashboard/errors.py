"""One mapping from the platform's errors to HTTP answers, for every API route: a route
raises what the store or the platform raised, and the client gets a status that says
what happened, with the platform's own sentence as ``detail``."""

from __future__ import annotations

from fastapi import FastAPI, Request, status
from fastapi.responses import JSONResponse

from arena.engine import RulesError
from arena.platform import PlatformError
from arena.store.errors import Conflict, Forbidden, NotFound, StoreError

#: most specific first
STATUS_OF: tuple[tuple[type[Exception], int], ...] = (
    (NotFound, status.HTTP_404_NOT_FOUND),
    (Conflict, status.HTTP_409_CONFLICT),
    (Forbidden, status.HTTP_403_FORBIDDEN),
    (StoreError, status.HTTP_400_BAD_REQUEST),
    (RulesError, status.HTTP_400_BAD_REQUEST),
    (PlatformError, status.HTTP_503_SERVICE_UNAVAILABLE),
)


def status_of(error: Exception) -> int:
    return next(code for kind, code in STATUS_OF if isinstance(error, kind))


async def _answer(request: Request, error: Exception) -> JSONResponse:
    return JSONResponse({"detail": str(error)}, status_code=status_of(error))


def install(app: FastAPI) -> None:
    for kind in (StoreError, RulesError, PlatformError):
        app.add_exception_handler(kind, _answer)
