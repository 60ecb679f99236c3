"""Sign in with an OpenID Connect provider, through the whole authorization-code flow
with PKCE against a real provider on the loopback (tests/support/oidc_provider.py):
a first sign-in makes an account, the next one finds it; a provider's answer that is
not this browser's, or that comes twice, signs nobody in."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from fastapi.testclient import TestClient

from arena.platform.settings import OidcProvider, Settings
from dashboard.app import create_app
from dashboard.oidc import STATE_COOKIE
from tests.support.oidc_provider import Provider, serving

SITE = "http://arena.test"


@pytest.fixture
def provider_and_site(settings: Settings) -> Iterator[tuple[Provider, TestClient]]:
    with serving(f"{SITE}/signin/oidc/callback") as provider:
        oidc = OidcProvider(
            provider.issuer, provider.client.client_id, provider.client.client_secret
        )
        app = create_app(replace(settings, oidc=oidc, page_cache_seconds=0))
        yield provider, TestClient(app, base_url=SITE)


def _to_provider(client: TestClient) -> str:
    """The browser's trip out: the site sends it to the provider; the provider sends it
    back with a code (its person signs in at once); the URL it comes back to."""
    out = client.get("/signin/oidc", follow_redirects=False)
    assert out.status_code == 303, out.text
    asked = parse_qs(urlsplit(out.headers["location"]).query)
    assert asked["code_challenge_method"] == ["S256"] and asked["nonce"][0], "PKCE and a nonce"
    back = httpx.get(out.headers["location"], follow_redirects=False)
    assert back.status_code == 302, back.text
    return back.headers["location"]


def _come_back(client: TestClient, url: str) -> httpx.Response:
    parts = urlsplit(url)
    assert f"{parts.scheme}://{parts.netloc}" == SITE
    return client.get(f"{parts.path}?{parts.query}", follow_redirects=False)


def test_a_person_signs_in_at_the_provider_and_is_the_same_account_the_next_time(
    provider_and_site,
) -> None:
    provider, client = provider_and_site
    landed = _come_back(client, _to_provider(client))
    assert landed.status_code == 303 and landed.headers["location"] == "/owner", landed.text
    assert "HttpOnly" in landed.headers["set-cookie"]
    assert client.get("/api/v1/owners/me").json()["name"] == "dana"
    again = TestClient(client.app, base_url=SITE)
    assert _come_back(again, _to_provider(again)).status_code == 303
    assert again.get("/api/v1/owners/me").json()["name"] == "dana", "the same account"
    assert provider.tokens_issued == 2
    password = {"name": "dana", "password": "any passphrase at all"}
    assert again.post("/api/v1/sessions", json=password).status_code == 401, "no password"


def test_a_taken_name_gets_a_number(provider_and_site) -> None:
    _, client = provider_and_site
    made = client.post("/api/v1/accounts", json={"name": "Dana", "password": "dana's own pass"})
    assert made.status_code == 201
    other = TestClient(client.app, base_url=SITE)
    _come_back(other, _to_provider(other))
    assert other.get("/api/v1/owners/me").json()["name"] == "dana-2"


def test_an_answer_for_another_browser_or_used_twice_signs_nobody_in(provider_and_site) -> None:
    """Login CSRF: the victim's browser brought back an attacker's code; and a replay."""
    provider, client = provider_and_site
    url = _to_provider(client)
    victim = TestClient(client.app, base_url=SITE)
    assert _come_back(victim, url).status_code == 403, "not begun in this browser"
    assert victim.get("/api/v1/owners/me").status_code == 401
    assert _come_back(client, url).status_code == 303
    client.cookies.set(STATE_COOKIE, parse_qs(urlsplit(url).query)["state"][0], domain="arena.test")
    assert _come_back(client, url).status_code == 403, "an attempt is used once"
    assert provider.tokens_issued == 1


def test_without_a_provider_there_is_no_provider_sign_in(settings: Settings) -> None:
    client = TestClient(create_app(settings), base_url=SITE)
    assert client.get("/signin/oidc", follow_redirects=False).status_code == 404
