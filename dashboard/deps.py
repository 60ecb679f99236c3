"""Dependencies, declared once as types (``SessionDep``, ``OwnerDep``, ``PlatformDep``)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from datetime import timedelta
from typing import Annotated

from fastapi import Depends, HTTPException, Request, Response, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session

from arena.base.people import Caller
from arena.platform import Platform
from arena.services import accounts as account_service
from arena.services import owners as owner_service
from arena.services.accounts import Browser, Clock
from arena.services.operators import PLATFORM_OPERATOR


def get_platform(request: Request) -> Platform:
    return request.app.state.platform


PlatformDep = Annotated[Platform, Depends(get_platform)]


def get_session(platform: PlatformDep) -> Iterator[Session]:
    with platform.db.read() as session:
        yield session


SessionDep = Annotated[Session, Depends(get_session)]
_bearer = HTTPBearer(auto_error=False, description="An owner's API token")


#: the cookie a signed-in browser holds (its session's secret)
SESSION_COOKIE = "arena_session"
#: the header a cookie-authenticated write carries its session's CSRF token in
CSRF_HEADER = "X-CSRF-Token"
#: what reads and never writes
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def clock(request: Request) -> Clock:
    """The app's clock (a test drives its own)."""
    return request.app.state.clock


def set_private_cookie(
    request: Request, response: Response, name: str, value: str, lasts: timedelta
) -> None:
    """A cookie this site's pages send back and no script reads: HttpOnly, SameSite=Lax,
    Secure over HTTPS."""
    response.set_cookie(
        name,
        value,
        max_age=int(lasts.total_seconds()),
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
    )


def check_same_site(request: Request) -> None:
    """Refuse a request another site's page sends (its ``Origin`` names another host)."""
    origin = request.headers.get("origin")
    if origin is None:
        return
    here = f"{request.url.scheme}://{request.url.netloc}"
    if origin != here:
        raise HTTPException(status.HTTP_403_FORBIDDEN, f"a request from {origin} is refused")


def get_owner(
    request: Request,
    session: SessionDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Caller:
    """The caller: an API token's owner, or a signed-in browser's account (whose writes
    come from this site and carry the session's CSRF token, or are refused: 403)."""
    owner = _caller_or_none(request, session, credentials)
    if owner is None:
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED,
            "a valid owner token, or a session (sign in), is required",
            headers={"WWW-Authenticate": "Bearer"},
        )
    needed = scope_of(request)
    if needed not in owner.scopes:
        raise HTTPException(
            status.HTTP_403_FORBIDDEN,
            f"this token may {' and '.join(sorted(owner.scopes))} only: this asks for {needed}",
        )
    return owner


#: the writes a ``submit`` token may make: a bot, a version
SUBMITTING = frozenset({("POST", "/api/v1/bots"), ("POST", "/api/v1/bots/{name}/versions")})


def scope_of(request: Request) -> str:
    """The scope a request needs: ``read`` to read, ``submit`` to submit a bot or a
    version, ``manage`` for every other write."""
    if request.method in SAFE_METHODS:
        return "read"
    route = request.scope.get("route")
    path = getattr(route, "path", request.url.path)
    return "submit" if (request.method, path) in SUBMITTING else "manage"


def signed_in(request: Request, session: Session) -> Browser | None:
    """The browser's session (None: no cookie, or one that no longer works); a write
    from another site, or without the session's CSRF token, is refused."""
    secret = request.cookies.get(SESSION_COOKIE)
    if not secret:
        return None
    browser = account_service.browser(session, secret, clock(request))
    if browser is None:
        return None
    if request.method not in SAFE_METHODS:
        check_same_site(request)
        sent = request.headers.get(CSRF_HEADER, "")
        if not secrets.compare_digest(sent.encode(), browser.csrf.encode()):
            raise HTTPException(
                status.HTTP_403_FORBIDDEN,
                f"a write signed in by a cookie carries its session's {CSRF_HEADER}",
            )
    return browser


OwnerDep = Annotated[Caller, Depends(get_owner)]


def get_reader(
    request: Request,
    platform: PlatformDep,
    session: SessionDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Caller | None:
    """The owner reading, if a token or a session came with the request (None: anyone,
    and the operator's token, which reads what anyone reads); a token that does not work
    is refused, never taken for no token."""
    if credentials is not None and _is_operator(platform, credentials.credentials):
        return None
    if credentials is None:
        browser = signed_in(request, session)
        return None if browser is None else browser.caller
    return get_owner(request, session, credentials)


#: the owner whose token came with the request, or None without a token
ReaderDep = Annotated[Caller | None, Depends(get_reader)]


def _is_operator(platform: Platform, token: str) -> bool:
    expected = platform.settings.operator_token
    if not (expected and token):
        return False
    return secrets.compare_digest(token.encode(), expected.encode())


def get_operator(
    request: Request,
    platform: PlatformDep,
    session: SessionDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> str:
    """Who acts as the operator: the operator's token (``ARENA_OPERATOR_TOKEN``), or an
    account with the operator's role (its session, or its token with ``manage``); the
    name the audit log keeps. Anybody else is refused."""
    if _is_operator(platform, credentials.credentials if credentials else ""):
        return PLATFORM_OPERATOR
    caller = _caller_or_none(request, session, credentials)
    if caller is not None and caller.operator:
        if "manage" not in caller.scopes:
            raise HTTPException(status.HTTP_403_FORBIDDEN, "this token may not manage")
        return caller.name
    if platform.settings.operator_token is None and caller is None:
        raise HTTPException(
            status.HTTP_403_FORBIDDEN,
            "the operator's API is off: the platform was started without ARENA_OPERATOR_TOKEN",
        )
    raise HTTPException(
        status.HTTP_401_UNAUTHORIZED,
        "the operator's token is required",
        headers={"WWW-Authenticate": "Bearer"},
    )


def _caller_or_none(
    request: Request, session: Session, credentials: HTTPAuthorizationCredentials | None
) -> Caller | None:
    """The account calling, if any (no refusal: the operator's checks decide)."""
    if credentials is None:
        browser = signed_in(request, session)
        return None if browser is None else browser.caller
    return owner_service.caller(session, credentials.credentials, clock(request))


OperatorDep = Depends(get_operator)
#: the operator's name for the audit log (the token's, or an operator account's)
OperatorNameDep = Annotated[str, Depends(get_operator)]


def get_actor(
    request: Request,
    platform: PlatformDep,
    session: SessionDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Caller | None:
    """Who calls: the operator (None) with the operator's token, else the token's owner."""
    token = credentials.credentials if credentials else ""
    if _is_operator(platform, token):
        return None
    return get_owner(request, session, credentials)


#: an owner, or the operator (None)
ActorDep = Annotated[Caller | None, Depends(get_actor)]
