"""Sign in with an OpenID Connect provider: the authorization-code flow with PKCE
(Authlib's PKCE code challenge; joserfc, Authlib's successor for JOSE, for the
``id_token``; httpx for the provider's three documents). ``begin`` says where to send
the browser, and what to keep until it comes back (the state, the nonce, the code
verifier); ``finish`` trades the code for the ``id_token`` and checks it (signature by
the provider's published keys, issuer, audience, expiry, nonce): who the provider says
the person is."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from urllib.parse import urlencode

import httpx
from authlib.oauth2.rfc7636 import create_s256_code_challenge
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

from arena.platform.errors import PlatformError
from arena.platform.settings import OidcProvider

#: how long the provider may take to answer
TIMEOUT_SECONDS = 10.0


class SignInFailed(PlatformError):
    """The provider's answer did not prove who the person is."""


@dataclass(frozen=True)
class Attempt:
    """What the platform keeps while the browser is at the provider."""

    state: str
    nonce: str
    verifier: str
    #: where the browser goes now
    url: str


@dataclass(frozen=True)
class Identity:
    """Who the provider says signed in."""

    issuer: str
    subject: str
    #: the name the person goes by there (a new account's first choice of name)
    username: str


def _discovery(provider: OidcProvider) -> dict[str, object]:
    found = httpx.get(
        f"{provider.issuer}/.well-known/openid-configuration", timeout=TIMEOUT_SECONDS
    )
    found.raise_for_status()
    document: dict[str, object] = found.json()
    if document.get("issuer") != provider.issuer:
        raise SignInFailed("the provider's discovery document names another issuer")
    return document


def begin(provider: OidcProvider, redirect_uri: str) -> Attempt:
    """Where to send the browser to sign in at the provider."""
    document = _discovery(provider)
    state, nonce = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
    verifier = secrets.token_urlsafe(48)
    query = urlencode(
        {
            "response_type": "code",
            "client_id": provider.client_id,
            "redirect_uri": redirect_uri,
            "scope": "openid profile",
            "state": state,
            "nonce": nonce,
            "code_challenge": create_s256_code_challenge(verifier),
            "code_challenge_method": "S256",
        }
    )
    return Attempt(state, nonce, verifier, f"{document['authorization_endpoint']}?{query}")


def finish(provider: OidcProvider, attempt: Attempt, code: str, redirect_uri: str) -> Identity:
    """Trade the provider's code for its ``id_token`` and check it."""
    document = _discovery(provider)
    answer = httpx.post(
        str(document["token_endpoint"]),
        data={
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": redirect_uri,
            "code_verifier": attempt.verifier,
        },
        auth=(provider.client_id, provider.client_secret),
        timeout=TIMEOUT_SECONDS,
    )
    if answer.status_code != 200 or "id_token" not in answer.json():
        raise SignInFailed(f"the provider refused the code ({answer.status_code})")
    keys = httpx.get(str(document["jwks_uri"]), timeout=TIMEOUT_SECONDS).json()
    expected = jwt.JWTClaimsRegistry(
        iss={"essential": True, "value": provider.issuer},
        aud={"essential": True, "value": provider.client_id},
        nonce={"essential": True, "value": attempt.nonce},
        sub={"essential": True},
        exp={"essential": True},
    )
    try:
        token = jwt.decode(answer.json()["id_token"], KeySet.import_key_set(keys), ["RS256"])
        expected.validate(token.claims)
        claims = token.claims
    except (JoseError, ValueError) as error:
        raise SignInFailed(f"the provider's id_token does not hold: {error}") from None
    username = str(claims.get("preferred_username") or claims["sub"])
    return Identity(provider.issuer, str(claims["sub"]), username)
