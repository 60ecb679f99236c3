"""Accounts: sign up, sign in and out, change a password (arena.services.accounts), and
the account's API tokens (arena.services.tokens).

Signing up or in sets the session's cookie (HttpOnly, SameSite=Lax, Secure over HTTPS)
and answers the CSRF token that the browser's writes then carry as ``X-CSRF-Token``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Request, Response, status
from pydantic import BaseModel, Field

from arena.base.people import Caller
from arena.platform import Platform
from arena.services import accounts as account_service
from arena.services import tokens as token_service
from arena.services.views.schemas import Name, Responses
from dashboard.deps import (
    SESSION_COOKIE,
    OwnerDep,
    PlatformDep,
    SessionDep,
    check_same_site,
    clock,
    set_private_cookie,
    signed_in,
)

router = APIRouter(tags=["accounts"])


class Credentials(BaseModel):
    name: str = Name
    password: str = Field(min_length=1, max_length=account_service.MAX_PASSWORD)


class SignedIn(BaseModel):
    """The account signed in, and the CSRF token its browser's writes carry."""

    name: str
    csrf: str


class NewPassword(BaseModel):
    current: str = Field(min_length=1, max_length=account_service.MAX_PASSWORD)
    new: str = Field(min_length=1, max_length=account_service.MAX_PASSWORD)


class Ended(BaseModel):
    #: the other sessions ended
    ended: int


THROTTLED: Responses = {429: {"description": "Too many tries: Retry-After says when"}}


def _address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _signed_in(request: Request, response: Response, ticket: account_service.Ticket) -> SignedIn:
    set_session_cookie(request, response, ticket)
    return SignedIn(name=ticket.caller.name, csrf=ticket.csrf)


def set_session_cookie(
    request: Request, response: Response, ticket: account_service.Ticket
) -> None:
    """The session's cookie: HttpOnly, SameSite=Lax, Secure over HTTPS."""
    set_private_cookie(
        request, response, SESSION_COOKIE, ticket.secret, account_service.SESSION_LASTS
    )


@router.post(
    "/accounts",
    response_model=SignedIn,
    status_code=status.HTTP_201_CREATED,
    responses={
        400: {"description": "A bad name, or a short, long or common password"},
        403: {"description": "From another site"},
        409: {"description": "The name is taken"},
        **THROTTLED,
    },
    dependencies=[Depends(check_same_site)],
)
def sign_up(
    body: Credentials, request: Request, response: Response, platform: PlatformDep
) -> SignedIn:
    """A new account, signed in: the answer sets its session's cookie."""
    return _entered(account_service.sign_up, body, request, response, platform)


@router.post(
    "/sessions",
    response_model=SignedIn,
    responses={
        401: {"description": "No account has this name and password"},
        403: {"description": "From another site"},
        **THROTTLED,
    },
    dependencies=[Depends(check_same_site)],
)
def sign_in(
    body: Credentials, request: Request, response: Response, platform: PlatformDep
) -> SignedIn:
    """A new session (never the one a cookie sent with the request names: a session
    someone planted stays theirs alone)."""
    return _entered(account_service.sign_in, body, request, response, platform)


def _entered(
    way_in: Callable[..., account_service.Ticket],
    body: Credentials,
    request: Request,
    response: Response,
    platform: Platform,
) -> SignedIn:
    """Signed up or in (``way_in``) with the body's name and password, from the
    request's address, at the platform's hashing cost."""
    ticket = way_in(
        platform.db,
        body.name,
        body.password,
        _address(request),
        clock(request),
        hashing=platform.settings.password_hashing,
    )
    return _signed_in(request, response, ticket)


def _browser(request: Request, session: SessionDep) -> account_service.Browser:
    browser = signed_in(request, session)
    if browser is None:
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "not signed in")
    return browser


BrowserDep = Annotated[account_service.Browser, Depends(_browser)]


@router.get("/sessions/current", response_model=SignedIn, responses={401: {}})
def current(browser: BrowserDep) -> SignedIn:
    """Who this browser is signed in as, and its CSRF token."""
    return SignedIn(name=browser.caller.name, csrf=browser.csrf)


@router.delete(
    "/sessions/current",
    status_code=status.HTTP_204_NO_CONTENT,
    responses={401: {}, 403: {"description": "No CSRF token, or from another site"}},
)
def sign_out(request: Request, browser: BrowserDep, platform: PlatformDep) -> Response:
    """End this browser's session."""
    account_service.sign_out(platform.db, request.cookies[SESSION_COOKIE], clock(request))
    response = Response(status_code=status.HTTP_204_NO_CONTENT)
    response.delete_cookie(SESSION_COOKIE, httponly=True, samesite="lax")
    return response


@router.post(
    "/account/password",
    response_model=Ended,
    responses={400: {}, 401: {}, 403: {"description": "Not the current password"}},
)
def change_password(
    body: NewPassword, request: Request, owner: OwnerDep, session: SessionDep, platform: PlatformDep
) -> Ended:
    """A new password; every other session of the account ends."""
    browser = signed_in(request, session)
    keep = browser.session_id if browser is not None else None
    caller = Caller(owner.id, owner.name)
    ended = account_service.change_password(
        platform.db,
        caller,
        body.current,
        body.new,
        keep,
        clock(request),
        hashing=platform.settings.password_hashing,
    )
    return Ended(ended=ended)


class TokenCreate(
    token_service.TokenRequest.body("TokenCreate")  # type: ignore[misc]  # the request's fields
):
    """A new API token: a label, its scopes, and how many days it works (none: until
    revoked)."""

    def request(self) -> token_service.TokenRequest:
        return token_service.TokenRequest.asked(**self.model_dump())


@router.post(
    "/tokens",
    response_model=token_service.Issued,
    status_code=status.HTTP_201_CREATED,
    responses={401: {}, 403: {"description": "A token without the manage scope"}},
)
def make_token(
    body: TokenCreate, request: Request, owner: OwnerDep, platform: PlatformDep
) -> token_service.Issued:
    """A new token of the caller's, shown this once (only its SHA-256 is kept)."""
    return token_service.issue(platform.db, owner, body.request(), clock(request))


@router.get("/tokens", response_model=list[token_service.TokenRow], responses={401: {}})
def my_tokens(
    request: Request, owner: OwnerDep, session: SessionDep
) -> list[token_service.TokenRow]:
    """The caller's tokens, the newest first, without their secrets."""
    return token_service.listing(session, owner, clock(request))


@router.delete(
    "/tokens/{token_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses={401: {}, 403: {}, 404: {"description": "Not one of the caller's tokens"}},
)
def revoke_token(
    token_id: int, request: Request, owner: OwnerDep, platform: PlatformDep
) -> Response:
    """The token stops working at once."""
    token_service.revoke(platform.db, owner, token_id, clock(request))
    return Response(status_code=status.HTTP_204_NO_CONTENT)
