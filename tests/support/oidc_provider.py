"""A real OpenID Connect provider on the loopback for the tests: Authlib's authorization
server (the authorization-code grant, PKCE required, ``id_token`` signed RS256 with a key
its JWKS publishes) in a small Flask app, served by Werkzeug on a thread. Whoever asks to
sign in is the provider's one person (``person``) at once: no login page to drive."""

from __future__ import annotations

import os
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from authlib.integrations.flask_oauth2 import AuthorizationServer
from authlib.oauth2.rfc6749 import AuthorizationCodeMixin, ClientMixin, grants
from authlib.oauth2.rfc7636 import CodeChallenge
from authlib.oidc.core import UserInfo
from authlib.oidc.core.grants import OpenIDCode
from flask import Flask, jsonify
from joserfc.jwk import RSAKey
from werkzeug.serving import WSGIRequestHandler, make_server

# the provider and the platform talk plain HTTP on the loopback
os.environ["AUTHLIB_INSECURE_TRANSPORT"] = "1"


@dataclass
class Person:
    sub: str
    preferred_username: str


@dataclass
class Client(ClientMixin):
    client_id: str
    client_secret: str
    redirect_uris: list[str]

    def get_client_id(self) -> str:
        return self.client_id

    def get_default_redirect_uri(self) -> str:
        return self.redirect_uris[0]

    def get_allowed_scope(self, scope: str) -> str:
        return " ".join(s for s in scope.split() if s in ("openid", "profile"))

    def check_redirect_uri(self, redirect_uri: str) -> bool:
        return redirect_uri in self.redirect_uris

    def check_client_secret(self, client_secret: str) -> bool:
        return secrets.compare_digest(client_secret, self.client_secret)

    def check_endpoint_auth_method(self, method: str, endpoint: str) -> bool:
        return method == "client_secret_basic"

    def check_response_type(self, response_type: str) -> bool:
        return response_type == "code"

    def check_grant_type(self, grant_type: str) -> bool:
        return grant_type == "authorization_code"


@dataclass
class Code(AuthorizationCodeMixin):
    code: str
    client_id: str
    redirect_uri: str
    scope: str
    nonce: str | None
    code_challenge: str | None
    code_challenge_method: str | None
    person: Person
    auth_time: int = field(default_factory=lambda: int(time.time()))

    def get_redirect_uri(self) -> str:
        return self.redirect_uri

    def get_scope(self) -> str:
        return self.scope

    def get_nonce(self) -> str | None:
        return self.nonce

    def get_auth_time(self) -> int:
        return self.auth_time

    def get_acr(self) -> str | None:
        return None

    def get_amr(self) -> list[str] | None:
        return None


class Provider:
    """The provider's state: its client, its person, the codes it gave (each used once)."""

    def __init__(self, redirect_uri: str) -> None:
        self.client = Client("arena", secrets.token_urlsafe(16), [redirect_uri])
        self.person = Person("subject-7", "dana")
        self.codes: dict[str, Code] = {}
        self.key = RSAKey.generate_key(2048, parameters={"kid": "k1"})
        self.issuer = ""
        self.tokens_issued = 0


def _app(provider: Provider) -> Flask:
    app = Flask(__name__)
    server = AuthorizationServer(
        app,
        query_client=lambda client_id: (
            provider.client if client_id == provider.client.client_id else None
        ),
        save_token=lambda token, request: None,
    )

    class CodeGrant(grants.AuthorizationCodeGrant):
        TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic"]

        def save_authorization_code(self, code: str, request: Any) -> None:
            data = request.payload.data
            provider.codes[code] = Code(
                code,
                request.client.client_id,
                request.payload.redirect_uri,
                request.payload.scope,
                data.get("nonce"),
                data.get("code_challenge"),
                data.get("code_challenge_method"),
                provider.person,
            )

        def query_authorization_code(self, code: str, client: Client) -> Code | None:
            found = provider.codes.get(code)
            return found if found is not None and found.client_id == client.client_id else None

        def delete_authorization_code(self, authorization_code: Code) -> None:
            provider.codes.pop(authorization_code.code, None)

        def authenticate_user(self, authorization_code: Code) -> Person:
            provider.tokens_issued += 1
            return authorization_code.person

    class Identity(OpenIDCode):
        def exists_nonce(self, nonce: str, request: Any) -> bool:
            return any(code.nonce == nonce for code in provider.codes.values())

        def resolve_client_private_key(self, client: Client) -> RSAKey:
            return provider.key

        def get_client_claims(self, client: Client) -> dict[str, Any]:
            return {"iss": provider.issuer, "aud": [client.get_client_id()]}

        def get_client_algorithm(self, client: Client) -> str:
            return "RS256"

        def generate_user_info(self, user: Person, scope: str) -> UserInfo:
            return UserInfo(sub=user.sub, preferred_username=user.preferred_username)

    server.register_grant(CodeGrant, [Identity(require_nonce=True), CodeChallenge(required=True)])

    @app.get("/.well-known/openid-configuration")
    def discovery() -> Any:
        return jsonify(
            issuer=provider.issuer,
            authorization_endpoint=f"{provider.issuer}/authorize",
            token_endpoint=f"{provider.issuer}/token",
            jwks_uri=f"{provider.issuer}/jwks",
            response_types_supported=["code"],
            subject_types_supported=["public"],
            id_token_signing_alg_values_supported=["RS256"],
            code_challenge_methods_supported=["S256"],
        )

    @app.get("/jwks")
    def jwks() -> Any:
        return jsonify(keys=[provider.key.as_dict(private=False)])

    @app.get("/authorize")
    def authorize() -> Any:
        grant = server.get_consent_grant(end_user=provider.person)  # consented at once
        return server.create_authorization_response(grant_user=provider.person, grant=grant)

    @app.post("/token")
    def token() -> Any:
        return server.create_token_response()

    return app


class _Quiet(WSGIRequestHandler):
    def log_request(self, *args: Any, **kwargs: Any) -> None:
        """No line per request in the tests' output."""


@contextmanager
def serving(redirect_uri: str) -> Iterator[Provider]:
    """The provider on a loopback port of its own while the block runs."""
    provider = Provider(redirect_uri)
    http = make_server("127.0.0.1", 0, _app(provider), threaded=True, request_handler=_Quiet)
    provider.issuer = f"http://127.0.0.1:{http.server_port}"
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    try:
        yield provider
    finally:
        http.shutdown()
        thread.join(timeout=10)
