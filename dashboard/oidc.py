"""Sign in with the OpenID Connect provider the operator set (``ARENA_OIDC_ISSUER``):
``/signin/oidc`` sends the browser there with a state it also keeps in a short cookie,
``/signin/oidc/callback`` takes it back (the state must be this browser's: nobody signs
a person in as someone else), checks the provider's ``id_token`` and opens a session."""

from __future__ import annotations

import secrets

from fastapi import APIRouter, HTTPException, Request, status
from fastapi.responses import RedirectResponse

from arena.platform import oidc
from arena.services import accounts as account_service
from dashboard.api.routes.accounts import set_session_cookie
from dashboard.deps import PlatformDep, clock, set_private_cookie

router = APIRouter(include_in_schema=False)
#: the cookie that ties a provider's answer to the browser that went there
STATE_COOKIE = "arena_oidc_state"


def _redirect_uri(request: Request) -> str:
    return str(request.url_for("oidc_callback"))


@router.get("/signin/oidc")
def oidc_begin(request: Request, platform: PlatformDep) -> RedirectResponse:
    provider = platform.settings.oidc
    if provider is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "no sign-in provider is set up here")
    attempt = oidc.begin(provider, _redirect_uri(request))
    account_service.keep_attempt(
        platform.db, attempt.state, attempt.nonce, attempt.verifier, clock(request)
    )
    answer = RedirectResponse(attempt.url, status_code=status.HTTP_303_SEE_OTHER)
    set_private_cookie(request, answer, STATE_COOKIE, attempt.state, account_service.ATTEMPT_LASTS)
    return answer


@router.get("/signin/oidc/callback", name="oidc_callback")
def oidc_callback(
    request: Request, platform: PlatformDep, state: str = "", code: str = ""
) -> RedirectResponse:
    provider = platform.settings.oidc
    if provider is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "no sign-in provider is set up here")
    mine = request.cookies.get(STATE_COOKIE, "")
    if not (state and code and secrets.compare_digest(state.encode(), mine.encode())):
        raise HTTPException(status.HTTP_403_FORBIDDEN, "this sign-in was not begun in this browser")
    nonce, verifier = account_service.take_attempt(platform.db, state, clock(request))
    attempt = oidc.Attempt(state, nonce, verifier, url="")
    try:
        who = oidc.finish(provider, attempt, code, _redirect_uri(request))
    except oidc.SignInFailed as error:
        raise HTTPException(status.HTTP_403_FORBIDDEN, str(error)) from None
    ticket = account_service.sign_in_with(
        platform.db, who.issuer, who.subject, who.username, clock(request)
    )
    answer = RedirectResponse("/owner", status_code=status.HTTP_303_SEE_OTHER)
    set_session_cookie(request, answer, ticket)
    answer.delete_cookie(STATE_COOKIE)
    return answer
