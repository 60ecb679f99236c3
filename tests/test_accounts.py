"""Accounts, tried as an attacker would: sign-up and sign-in through the API, sessions in
HttpOnly SameSite cookies, CSRF and other sites' requests refused, passwords guessed no
faster than the throttles allow (a clock the test drives: nothing sleeps), a planted
session never adopted, a changed password ending every other session."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from arena.platform.settings import Settings
from arena.services.accounts import Throttles
from arena.store.models import AccountSession, ApiToken, Owner, now
from dashboard.app import create_app
from dashboard.deps import CSRF_HEADER, SESSION_COOKIE
from tests.support.api import OPERATOR_TOKEN, auth

#: sessions, throttles and tokens are the store's contract: on SQLite and PostgreSQL alike
pytestmark = pytest.mark.both_databases

PASSWORD = "a long passphrase of mine"


class Clock:
    """The app's clock, moved by the test."""

    def __init__(self) -> None:
        self.moment = now()

    def __call__(self) -> datetime:
        return self.moment

    def advance(self, seconds: float) -> None:
        self.moment += timedelta(seconds=seconds)


@pytest.fixture
def site(settings: Settings) -> tuple[TestClient, Clock]:
    app = create_app(replace(settings, operator_token=OPERATOR_TOKEN, page_cache_seconds=0))
    app.state.clock = clock = Clock()
    return TestClient(app, base_url="http://arena.test"), clock


def _sign_up(client: TestClient, name: str = "alice", password: str = PASSWORD):
    return client.post("/api/v1/accounts", json={"name": name, "password": password})


def test_a_person_signs_up_is_signed_in_by_an_httponly_cookie_and_reads_their_account(
    site,
) -> None:
    client, _ = site
    made = _sign_up(client)
    assert made.status_code == 201, made.text
    assert made.json()["name"] == "alice" and len(made.json()["csrf"]) >= 32
    cookie = made.headers["set-cookie"]
    assert f"{SESSION_COOKIE}=" in cookie and "HttpOnly" in cookie and "SameSite=lax" in cookie
    assert "Secure" not in cookie, "plain HTTP: a Secure cookie would never come back"
    me = client.get("/api/v1/owners/me")
    assert me.status_code == 200 and me.json()["name"] == "alice"
    with client.app.state.platform.db.read() as session:  # type: ignore[attr-defined]
        owner = session.scalars(select(Owner)).one()
        stored = session.scalars(select(AccountSession.secret_hash)).one()
    assert owner.password_hash is not None and owner.password_hash.startswith("$argon2id$")
    assert PASSWORD not in owner.password_hash
    assert client.cookies[SESSION_COOKIE] not in stored, "only the secret's digest is kept"


def test_over_https_the_cookie_is_secure(settings: Settings) -> None:
    client = TestClient(create_app(settings), base_url="https://arena.test")
    assert "Secure" in _sign_up(client).headers["set-cookie"]


@pytest.mark.parametrize(
    ("name", "password", "said"),
    [
        ("bob", "short", "10 to 256 characters"),
        ("bob", "x" * 257, "string_too_long"),
        ("bob", "password123", "most common"),
        ("bob", "Iloveyou12", "most common"),
        ("BobTheGreat", "bobthegreat", "not the account's name"),
        ("a b", PASSWORD, "pattern"),
    ],
)
def test_a_weak_password_or_a_bad_name_is_refused(site, name, password, said) -> None:
    client, _ = site
    refused = _sign_up(client, name, password)
    assert refused.status_code in (400, 422) and said in refused.text, refused.text


def test_names_are_folded_whatever_their_case(site) -> None:
    client, _ = site
    assert _sign_up(client, "Alice").status_code == 201
    taken = TestClient(client.app, base_url="http://arena.test")
    assert _sign_up(taken, "ALICE").status_code == 409
    signed = taken.post("/api/v1/sessions", json={"name": "alice", "password": PASSWORD})
    assert signed.status_code == 200 and signed.json()["name"] == "Alice"


def test_a_cookie_write_without_its_csrf_token_or_from_another_site_is_refused(site) -> None:
    client, _ = site
    csrf = _sign_up(client).json()["csrf"]
    body = {"name": "mine", "kind": "sample", "target": "honest"}
    assert client.post("/api/v1/bots", json=body).status_code == 403, "no CSRF token"
    wrong = client.post("/api/v1/bots", json=body, headers={CSRF_HEADER: "x" * 43})
    assert wrong.status_code == 403
    elsewhere = {CSRF_HEADER: csrf, "Origin": "http://evil.example"}
    assert client.post("/api/v1/bots", json=body, headers=elsewhere).status_code == 403
    sent = client.post(
        "/api/v1/bots", json=body, headers={CSRF_HEADER: csrf, "Origin": "http://arena.test"}
    )
    assert sent.status_code != 403, sent.text  # past the session's checks (a sample: 403/201)
    assert client.get("/api/v1/owners/me").status_code == 200, "reads need no token"


def test_a_hash_is_made_at_the_platforms_cost_and_again_at_a_new_one_on_sign_in(
    settings: Settings,
) -> None:
    """The platform's Argon2id cost (``ARENA_PASSWORD_HASHING``) makes each new hash; an
    account hashed at another cost keeps signing in, and its hash is made again at the
    platform's cost then."""
    first = TestClient(create_app(settings), base_url="http://arena.test")
    assert _sign_up(first).status_code == 201
    dearer = replace(settings.password_hashing, time_cost=settings.password_hashing.time_cost + 1)
    second = TestClient(
        create_app(replace(settings, password_hashing=dearer)), base_url="http://arena.test"
    )

    def stored() -> str:
        with second.app.state.platform.db.read() as session:  # type: ignore[attr-defined]
            found = session.scalars(select(Owner.password_hash)).one()
        assert found is not None
        return found

    hashing = settings.password_hashing
    made = f"m={hashing.memory_cost},t={hashing.time_cost},p={hashing.parallelism}"
    assert made in stored()
    signed_in = second.post("/api/v1/sessions", json={"name": "alice", "password": PASSWORD})
    assert signed_in.status_code == 200, signed_in.text
    assert f"t={dearer.time_cost}," in stored(), "made again at the platform's cost"
    again = first.post("/api/v1/sessions", json={"name": "alice", "password": PASSWORD})
    assert again.status_code == 200, "a hash says its own cost: any platform verifies it"


def test_signing_in_from_another_site_is_refused(site) -> None:
    client, _ = site
    _sign_up(client)
    cross = client.post(
        "/api/v1/sessions",
        json={"name": "alice", "password": PASSWORD},
        headers={"Origin": "http://evil.example"},
    )
    assert cross.status_code == 403


def test_a_planted_session_is_never_adopted_and_signing_out_ends_it(site) -> None:
    """Session fixation: a cookie sent with the sign-in is not the session signed in."""
    client, _ = site
    _sign_up(client)
    planted = "planted-" + "0" * 40
    client.cookies.set(SESSION_COOKIE, planted, domain="arena.test")
    signed = client.post("/api/v1/sessions", json={"name": "alice", "password": PASSWORD})
    assert signed.status_code == 200
    assert client.cookies[SESSION_COOKIE] != planted
    csrf = signed.json()["csrf"]
    secret = client.cookies[SESSION_COOKIE]
    assert client.delete("/api/v1/sessions/current").status_code == 403, "CSRF on sign-out"
    assert client.delete("/api/v1/sessions/current", headers={CSRF_HEADER: csrf}).status_code == 204
    client.cookies.set(SESSION_COOKIE, secret, domain="arena.test")  # kept by a thief
    assert client.get("/api/v1/sessions/current").status_code == 401
    assert client.get("/api/v1/owners/me").status_code == 401


def test_password_guesses_are_throttled_per_account_and_per_address_by_the_clock(site) -> None:
    client, clock = site
    _sign_up(client)
    limits = Throttles()
    wrong = {"name": "alice", "password": "not the password at all"}
    for _ in range(limits.per_account.most):
        assert client.post("/api/v1/sessions", json=wrong).status_code == 401
    blocked = client.post("/api/v1/sessions", json={"name": "alice", "password": PASSWORD})
    assert blocked.status_code == 429, "even the right password: the account waits"
    wait = int(blocked.headers["Retry-After"])
    assert 0 < wait <= limits.per_account.window.total_seconds()
    clock.advance(wait - 1)
    assert client.post("/api/v1/sessions", json=wrong).status_code == 429
    clock.advance(1)
    right = client.post("/api/v1/sessions", json={"name": "alice", "password": PASSWORD})
    assert right.status_code == 200, right.text
    # one address guessing many accounts: its own limit, over every name
    for index in range(limits.per_address.most):
        guess = {"name": f"nobody{index}", "password": "not the password at all"}
        assert client.post("/api/v1/sessions", json=guess).status_code == 401
    assert client.post("/api/v1/sessions", json=wrong | {"name": "carol"}).status_code == 429


def test_sign_ups_from_one_address_are_throttled(site) -> None:
    client, clock = site
    for index in range(Throttles().sign_ups.most):
        assert _sign_up(client, f"person{index}").status_code == 201
    over = _sign_up(client, "one-more")
    assert over.status_code == 429 and int(over.headers["Retry-After"]) > 0
    clock.advance(Throttles().sign_ups.window.total_seconds())
    assert _sign_up(client, "one-more").status_code == 201


def test_changing_the_password_ends_every_other_session(site) -> None:
    client, _ = site
    csrf = _sign_up(client).json()["csrf"]
    other = TestClient(client.app, base_url="http://arena.test")
    assert other.post("/api/v1/sessions", json={"name": "alice", "password": PASSWORD}).is_success
    new = "another long passphrase"
    changed = client.post(
        "/api/v1/account/password",
        json={"current": PASSWORD, "new": new},
        headers={CSRF_HEADER: csrf},
    )
    assert changed.json() == {"ended": 1}, changed.text
    assert other.get("/api/v1/owners/me").status_code == 401, "the other browser is out"
    assert client.get("/api/v1/owners/me").status_code == 200, "this one stays in"
    old = other.post("/api/v1/sessions", json={"name": "alice", "password": PASSWORD})
    assert old.status_code == 401
    assert other.post("/api/v1/sessions", json={"name": "alice", "password": new}).is_success


def test_an_operator_made_owner_has_no_password_to_guess(site) -> None:
    """Owners made by ``arena owner add`` sign in with their token only."""
    from arena.services import owners as owner_service

    client, _ = site
    token = owner_service.add(client.app.state.platform.db, "dave")  # type: ignore[attr-defined]
    guess = client.post("/api/v1/sessions", json={"name": "dave", "password": PASSWORD})
    assert guess.status_code == 401
    assert client.get("/api/v1/owners/me", headers=auth(token)).json()["name"] == "dave"


def _token(client: TestClient, csrf: str, scopes: list[str], days: int | None = None) -> dict:
    made = client.post(
        "/api/v1/tokens",
        json={"label": "+".join(scopes), "scopes": scopes, "days": days},
        headers={CSRF_HEADER: csrf},
    )
    assert made.status_code == 201, made.text
    return made.json()


def test_tokens_are_named_scoped_shown_once_and_a_read_only_one_cannot_submit(site) -> None:
    """A stolen read-only token reads the owner's things and changes nothing."""
    client, _ = site
    csrf = _sign_up(client).json()["csrf"]
    reader = _token(client, csrf, ["read"])
    submitter = _token(client, csrf, ["submit", "read"])
    assert reader["token"].startswith("arena_") and reader["scopes"] == ["read"]
    assert submitter["scopes"] == ["read", "submit"], "in the scopes' order, once each"
    thief = TestClient(client.app, base_url="http://arena.test")
    assert thief.get("/api/v1/owners/me", headers=auth(reader["token"])).json()["name"] == "alice"
    bot = {"name": "stolen", "kind": "sample", "target": "honest"}
    refused = thief.post("/api/v1/bots", json=bot, headers=auth(reader["token"]))
    assert refused.status_code == 403 and "read only" in refused.text, refused.text
    for write in ("/api/v1/owners/me/token", "/api/v1/tokens"):
        body = {"label": "more", "scopes": ["manage"]}
        assert thief.post(write, json=body, headers=auth(submitter["token"])).status_code == 403
    listed = client.get("/api/v1/tokens").json()
    assert [row["label"] for row in listed] == ["submit+read", "read"]
    assert all("token" not in row and row["state"] == "live" for row in listed)
    with client.app.state.platform.db.read() as session:  # type: ignore[attr-defined]
        kept = " ".join(session.scalars(select(ApiToken.digest)))
    assert reader["token"] not in kept and submitter["token"] not in kept


def test_a_revoked_or_expired_token_stops_working(site) -> None:
    client, clock = site
    csrf = _sign_up(client).json()["csrf"]
    lasting = _token(client, csrf, ["read"], days=1)
    revoked = _token(client, csrf, ["read", "submit", "manage"])
    gone = client.delete(f"/api/v1/tokens/{revoked['id']}", headers={CSRF_HEADER: csrf})
    assert gone.status_code == 204
    assert client.get("/api/v1/owners/me", headers=auth(revoked["token"])).status_code == 401
    assert client.get("/api/v1/owners/me", headers=auth(lasting["token"])).status_code == 200
    clock.advance(24 * 3600)
    assert client.get("/api/v1/owners/me", headers=auth(lasting["token"])).status_code == 401
    states = {row["label"]: row["state"] for row in client.get("/api/v1/tokens").json()}
    assert states == {"read": "expired", "read+submit+manage": "revoked"}
    other = TestClient(client.app, base_url="http://arena.test")
    csrf_b = _sign_up(other, "bob").json()["csrf"]
    theirs = other.delete(f"/api/v1/tokens/{lasting['id']}", headers={CSRF_HEADER: csrf_b})
    assert theirs.status_code == 404, "another account's token is not theirs to revoke"


def test_an_unknown_scope_is_refused(site) -> None:
    client, _ = site
    csrf = _sign_up(client).json()["csrf"]
    asked = {"label": "x", "scopes": ["admin"]}
    refused = client.post("/api/v1/tokens", json=asked, headers={CSRF_HEADER: csrf})
    assert refused.status_code == 422 and "'read', 'submit' or 'manage'" in refused.text


@pytest.mark.processes
def test_arena_login_keeps_the_token_for_the_owner_s_commands_and_logout_forgets_it(
    tmp_path, settings: Settings
) -> None:
    """``arena login`` keeps the token in a file only its user reads (0600); ``bot
    submit`` then acts as its owner with no ``--token``; a read-only token may not."""
    from arena.services import owners as owner_service
    from tests.support.cli import arena, environment

    db = create_app(settings).state.platform.db
    token = owner_service.add(db, "erin")
    env = environment(settings) | {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    env.pop("ARENA_TOKEN", None)
    signed = arena("login", "--token", token, env=env)
    assert signed.returncode == 0 and "signed in as erin" in signed.stdout, signed.stderr
    kept = tmp_path / "config" / "arena" / "token"
    assert kept.read_text().strip() == token and kept.stat().st_mode & 0o777 == 0o600
    bot = tmp_path / "mine.py"
    bot.write_text((Path(__file__).parents[1] / "examples" / "truthful.py").read_text())
    submitted = arena("bot", "submit", "mine", "--path", str(bot), env=env)
    assert submitted.returncode == 0, submitted.stderr
    assert owner_service.listing(db)[0]["bots"] == ["mine"], "the bot is erin's"
    wrong = arena("login", "--token", "arena_nobody", env=env)
    assert wrong.returncode == 2 and "nobody's" in wrong.stderr
    out = arena("logout", env=env)
    assert out.returncode == 0 and not kept.exists()


def test_an_operator_account_suspends_another_whose_tokens_and_sessions_stop_and_all_is_audited(
    site,
) -> None:
    """Suspension: the suspended account's old token, session and password are refused;
    a non-operator may not suspend; every action is in the audit log (API and CLI)."""
    from arena.services import operators as operator_service
    from tests.support.cli import arena as command
    from tests.support.cli import environment

    client, _ = site
    platform = client.app.state.platform  # type: ignore[attr-defined]
    mallory = TestClient(client.app, base_url="http://arena.test")
    csrf_m = _sign_up(mallory, "mallory").json()["csrf"]
    token = _token(mallory, csrf_m, ["read", "submit", "manage"])["token"]
    csrf = _sign_up(client).json()["csrf"]
    reason = {"reason": "a team of bots"}
    refused = client.post(
        "/api/v1/admin/accounts/mallory/suspend", json=reason, headers={CSRF_HEADER: csrf}
    )
    assert refused.status_code == 401, "alice is no operator (yet)"
    env = environment(platform.settings)
    granted = command("operator", "grant", "alice", env=env)
    assert granted.returncode == 0 and "alice is an operator" in granted.stdout, granted.stderr
    done = client.post(
        "/api/v1/admin/accounts/mallory/suspend", json=reason, headers={CSRF_HEADER: csrf}
    )
    assert done.json() == {
        "name": "mallory",
        "role": "owner",
        "suspended": True,
        "reason": "a team of bots",
    }, done.text
    assert mallory.get("/api/v1/owners/me").status_code == 401, "the session ended"
    assert client.get("/api/v1/owners/me", headers=auth(token)).status_code == 401, "the token"
    again = mallory.post("/api/v1/sessions", json={"name": "mallory", "password": PASSWORD})
    assert again.status_code == 403 and "suspended: a team of bots" in again.text
    assert mallory.get("/api/v1/admin/audit", headers=auth(token)).status_code == 401
    lifted = command("operator", "lift", "mallory", "--reason", "appeal heard", env=env)
    assert lifted.returncode == 0, lifted.stderr
    assert client.get("/api/v1/owners/me", headers=auth(token)).status_code == 200
    log = client.get("/api/v1/admin/audit").json()
    assert [(row["actor"], row["action"], row["target"], row["reason"]) for row in log] == [
        ("operator", "lift suspension", "mallory", "appeal heard"),
        ("alice", "suspend", "mallory", "a team of bots"),
        ("operator", "role operator", "alice", ""),
    ]
    printed = command("audit", env=env)
    assert printed.returncode == 0 and "a team of bots" in printed.stdout
    assert client.get("/api/v1/admin/audit", headers=auth(OPERATOR_TOKEN)).status_code == 200
    with pytest.raises(Exception, match="reason"):
        operator_service.suspend(platform.db, "mallory", "   ")
