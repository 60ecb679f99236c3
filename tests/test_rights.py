"""Owners' rights, tried by a hostile owner through the HTTP API: every route's rights
as docs/api.md's table gives them, private tournaments within their limits, and none
of them on the public leaderboard."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.base.states import BotKind, TournamentStatus
from arena.engine import Ruleset
from arena.platform.settings import Settings
from arena.services.views import bots as bot_queries
from arena.store import bots, tournaments
from arena.store.models import BotVersion, Owner
from arena.store.owners import add_owner
from tests.support.api import auth, played_tournament
from tests.support.store import SAMPLES, add_samples, match_ids, played_competition

#: the store's contract: on SQLite and PostgreSQL alike
pytestmark = pytest.mark.both_databases

DOC = Path(__file__).resolve().parents[1] / "docs" / "api.md"
#: a table id nobody was given (a table's id is the key to its seat)
NOBODYS = "n0-such-table-id"
ROW = re.compile(r"^\| `(GET|POST|DELETE|PUT|PATCH) (/api/v1/[^`]*)` \| (\d+|—)[^|]*\| (\d+|—)")


def documented() -> dict[tuple[str, str], tuple[str, str]]:
    """(method, path) -> (answer without a token, answer with another owner's)."""
    rows = {}
    for line in DOC.read_text().splitlines():
        found = ROW.match(line)
        if found:
            method, path, none, other = found.groups()
            rows[(method, path)] = (none, other)
    return rows


@pytest.fixture
def rivals(app_and_token):
    """alice (the fixture's owner) with a bot and a private tournament; mallory, another
    owner, with a token; the operator's tournament "open"."""
    client, alice, arena = app_and_token
    add_samples(arena.db)
    owners = arena.db.transaction(lambda s: add_owner(s, "mallory"))
    mallory = owners[1]
    alice_id = arena.db.transaction(lambda s: queries_owner_id(s, "alice"))
    arena.db.transaction(
        lambda s: bots.add_bot(s, "alices", BotKind.SAMPLE, "honest", owner_id=alice_id)
    )
    made = client.post(
        "/api/v1/tournaments",
        headers=auth(alice),
        json={"name": "alices-cup", "bots": ["alices", *SAMPLES[:2]], "table_size": 3},
    )
    assert made.status_code == 201, made.text
    arena.db.transaction(lambda s: _second_version(s, "alices"))
    tested = client.post(
        "/api/v1/abtests",
        headers=auth(alice),
        json={"name": "alices-ab", "new": "alices:2", "base": "alices:1"},
    )
    assert tested.status_code == 201, tested.text
    rules = Ruleset.parse("classic")
    arena.db.transaction(lambda s: tournaments.create(s, "open", rules, SAMPLES, 4, 4))
    return client, alice, mallory, arena


def _second_version(session: Session, name: str) -> None:
    """A second qualified version of the bot (an A/B test compares two)."""
    first = bots.active_version(session, name)
    session.add(BotVersion(bot_id=first.bot_id, number=2, kind=first.kind, target=first.target))


def queries_owner_id(session: Session, name: str) -> int:
    return session.scalar(select(Owner.id).where(Owner.name == name))


def attempts(alice_bot: str = "alices") -> dict[tuple[str, str], tuple[str, dict | None]]:
    """A request for each route: (the URL to call, its body)."""
    return {
        ("GET", "/api/v1/bots"): ("/api/v1/bots", None),
        ("POST", "/api/v1/accounts"): (
            "/api/v1/accounts",
            {"name": "newcomer", "password": "a long passphrase of theirs"},
        ),
        ("POST", "/api/v1/sessions"): (
            "/api/v1/sessions",
            {"name": "alice", "password": "not alice's password at all"},
        ),
        ("GET", "/api/v1/sessions/current"): ("/api/v1/sessions/current", None),
        ("DELETE", "/api/v1/sessions/current"): ("/api/v1/sessions/current", None),
        ("POST", "/api/v1/tokens"): ("/api/v1/tokens", {"label": "x", "scopes": ["read"]}),
        ("GET", "/api/v1/tokens"): ("/api/v1/tokens", None),
        ("DELETE", "/api/v1/tokens/{token_id}"): ("/api/v1/tokens/1", None),
        ("POST", "/api/v1/admin/accounts/{name}/suspend"): (
            "/api/v1/admin/accounts/alice/suspend",
            {"reason": "a try"},
        ),
        ("POST", "/api/v1/admin/accounts/{name}/lift"): (
            "/api/v1/admin/accounts/alice/lift",
            {"reason": "a try"},
        ),
        ("GET", "/api/v1/admin/audit"): ("/api/v1/admin/audit", None),
        ("GET", "/api/v1/admin/accounts"): ("/api/v1/admin/accounts", None),
        ("GET", "/api/v1/admin/bots"): ("/api/v1/admin/bots", None),
        ("GET", "/api/v1/admin/teams"): ("/api/v1/admin/teams", None),
        ("POST", "/api/v1/admin/bots/{name}/disqualify"): (
            f"/api/v1/admin/bots/{alice_bot}/disqualify",
            {"reason": "a try"},
        ),
        ("POST", "/api/v1/admin/bots/{name}/versions/{number}/disqualify"): (
            f"/api/v1/admin/bots/{alice_bot}/versions/1/disqualify",
            {"reason": "a try"},
        ),
        ("POST", "/api/v1/admin/matches/{match_id}/void"): (
            "/api/v1/admin/matches/1/void",
            {"reason": "a try"},
        ),
        ("POST", "/api/v1/teams"): ("/api/v1/teams", {"name": "newteam"}),
        ("GET", "/api/v1/account/teams"): ("/api/v1/account/teams", None),
        ("GET", "/api/v1/teams/{name}"): ("/api/v1/teams/alice", None),
        ("POST", "/api/v1/teams/{name}/invites"): ("/api/v1/teams/alice/invites", None),
        ("POST", "/api/v1/teams/join"): ("/api/v1/teams/join", {"code": "join_not-a-code"}),
        ("POST", "/api/v1/teams/{name}/leave"): ("/api/v1/teams/alice/leave", None),
        ("DELETE", "/api/v1/teams/{name}/members/{member}"): (
            "/api/v1/teams/alice/members/alice",
            None,
        ),
        ("POST", "/api/v1/account/password"): (
            "/api/v1/account/password",
            {"current": "a guess at alice's", "new": "a long passphrase of theirs"},
        ),
        ("GET", "/api/v1/bots/{name}"): (f"/api/v1/bots/{alice_bot}", None),
        ("POST", "/api/v1/bots"): (
            "/api/v1/bots",
            {"name": "newbot", "kind": "sample", "target": "random"},
        ),
        ("POST", "/api/v1/bots/{name}/versions"): (
            f"/api/v1/bots/{alice_bot}/versions",
            {"kind": "sample", "target": "random"},
        ),
        ("POST", "/api/v1/bots/{name}/promote"): (
            f"/api/v1/bots/{alice_bot}/promote",
            {"version": 2},
        ),
        ("POST", "/api/v1/bots/{name}/rollback"): (f"/api/v1/bots/{alice_bot}/rollback", None),
        ("GET", "/api/v1/tournaments"): ("/api/v1/tournaments", None),
        ("GET", "/api/v1/tournaments/{name}"): ("/api/v1/tournaments/alices-cup", None),
        ("GET", "/api/v1/tournaments/{name}/leaderboard"): (
            "/api/v1/tournaments/alices-cup/leaderboard",
            None,
        ),
        ("GET", "/api/v1/tournaments/{name}/groups"): (
            "/api/v1/tournaments/alices-cup/groups",
            None,
        ),
        ("GET", "/api/v1/tournaments/{name}/fairplay"): (
            "/api/v1/tournaments/alices-cup/fairplay",
            None,
        ),
        ("POST", "/api/v1/tournaments"): (
            "/api/v1/tournaments",
            {"name": "stolen", "bots": [alice_bot, *SAMPLES[:2]], "table_size": 3},
        ),
        ("POST", "/api/v1/tournaments/{name}/start"): (
            "/api/v1/tournaments/alices-cup/start",
            None,
        ),
        ("POST", "/api/v1/tournaments/{name}/stop"): ("/api/v1/tournaments/alices-cup/stop", None),
        ("GET", "/api/v1/abtests/{name}"): ("/api/v1/abtests/alices-ab", None),
        ("POST", "/api/v1/abtests"): (
            "/api/v1/abtests",
            {"name": "mallorys-ab", "new": f"{alice_bot}:2", "base": f"{alice_bot}:1"},
        ),
        ("POST", "/api/v1/abtests/{name}/start"): ("/api/v1/abtests/alices-ab/start", None),
        ("POST", "/api/v1/abtests/{name}/stop"): ("/api/v1/abtests/alices-ab/stop", None),
        ("GET", "/api/v1/competitions"): ("/api/v1/competitions", None),
        ("GET", "/api/v1/competitions/{name}"): ("/api/v1/competitions/main", None),
        ("POST", "/api/v1/competitions"): ("/api/v1/competitions", {"name": "staged"}),
        ("POST", "/api/v1/competitions/{name}/pause"): ("/api/v1/competitions/main/pause", None),
        ("POST", "/api/v1/competitions/{name}/resume"): ("/api/v1/competitions/main/resume", None),
        ("POST", "/api/v1/competitions/{name}/close"): ("/api/v1/competitions/main/close", None),
        ("POST", "/api/v1/competitions/{name}/new-season"): (
            "/api/v1/competitions/main/new-season",
            None,
        ),
        ("POST", "/api/v1/competitions/{name}/pace"): (
            "/api/v1/competitions/main/pace",
            {"pace": 3},
        ),
        ("GET", "/api/v1/matches"): ("/api/v1/matches", None),
        ("GET", "/api/v1/matches/{match_id}"): (None, None),  # filled in with a real id
        ("GET", "/api/v1/matches/{match_id}/log"): (None, None),
        ("GET", "/api/v1/matches/{match_id}/replay"): (None, None),
        ("PATCH", "/api/v1/bots/{name}/consent"): (
            f"/api/v1/bots/{alice_bot}/consent",
            {"people": False},
        ),
        ("POST", "/api/v1/tables"): ("/api/v1/tables", {"bots": ["sample:random"]}),
        ("POST", "/api/v1/scrimmages"): (
            "/api/v1/scrimmages",
            {"bot": alice_bot, "against": ["sample:random"], "games": 2},
        ),
        ("GET", "/api/v1/owners/me/scrimmages"): ("/api/v1/owners/me/scrimmages", None),
        ("GET", "/api/v1/tables/{table_id}"): (f"/api/v1/tables/{NOBODYS}", None),
        ("POST", "/api/v1/tables/{table_id}/act"): (
            f"/api/v1/tables/{NOBODYS}/act",
            {"action": {"do": "pass"}},
        ),
        ("POST", "/api/v1/tables/{table_id}/leave"): (f"/api/v1/tables/{NOBODYS}/leave", None),
        ("GET", "/api/v1/tables/{table_id}/log"): (f"/api/v1/tables/{NOBODYS}/log", None),
        ("GET", "/api/v1/owners/me"): ("/api/v1/owners/me", None),
        ("GET", "/api/v1/owners/me/seats"): ("/api/v1/owners/me/seats", None),
        ("GET", "/api/v1/owners/me/matches"): ("/api/v1/owners/me/matches", None),
        ("POST", "/api/v1/owners/me/token"): ("/api/v1/owners/me/token", None),
        ("DELETE", "/api/v1/owners/me/token"): ("/api/v1/owners/me/token", None),
    }


def test_every_route_is_in_the_rights_table(app_and_token) -> None:
    client, _, _ = app_and_token
    served = {
        (method.upper(), path)
        for path, operations in client.app.openapi()["paths"].items()
        for method in operations
    }
    assert served == set(documented()), "docs/api.md's table and the app's routes differ"
    assert set(attempts()) == served


def test_every_route_answers_as_the_table_says(rivals) -> None:
    client, _, mallory, arena = rivals
    [match_id, *_] = match_ids(arena.db)
    urls = attempts()
    urls[("GET", "/api/v1/matches/{match_id}")] = (f"/api/v1/matches/{match_id}", None)
    urls[("GET", "/api/v1/matches/{match_id}/log")] = (f"/api/v1/matches/{match_id}/log", None)
    urls[("GET", "/api/v1/matches/{match_id}/replay")] = (
        f"/api/v1/matches/{match_id}/replay",
        None,
    )
    for (method, path), (none, other) in documented().items():
        url, body = urls[(method, path)]
        for token, documented_answer in ((None, none), (mallory, other)):
            if documented_answer == "—":
                continue
            headers = auth(token) if token else {}
            answer = client.request(method, url, json=body, headers=headers)
            client.cookies.clear()  # a sign-up's session is not the next caller's
            allowed = {int(documented_answer)}
            if method == "GET":  # a public read: found or not, never a question of rights
                allowed.add(404)
            assert answer.status_code in allowed, (method, path, token, answer.text)


def test_an_owner_cannot_start_the_operators_tournament_or_another_owners(rivals) -> None:
    client, alice, mallory, arena = rivals
    for name in ("open", "alices-cup"):
        answer = client.post(f"/api/v1/tournaments/{name}/start", headers=auth(mallory))
        assert answer.status_code == 403, answer.text
    assert client.post("/api/v1/tournaments/open/start", headers=auth(alice)).status_code == 403
    with arena.db.read() as session:  # checked from outside: nothing was queued
        for name in ("open", "alices-cup"):
            assert tournaments.get(session, name).status is TournamentStatus.CREATED
    assert len(arena.queue) == 0


def test_a_private_tournament_stays_within_its_limits(rivals) -> None:
    client, alice, _, _ = rivals
    body = {"bots": ["alices", *SAMPLES[:2]], "table_size": 3}

    def create(name: str, **extra: object):
        return client.post(
            "/api/v1/tournaments", headers=auth(alice), json={"name": name, **body, **extra}
        )

    too_many = create("huge", games=100_000)
    assert too_many.status_code == 400 and "at most 200 games" in too_many.text
    assert "at most 2 tables" in create("ladder", format="ladder", games=50).text
    assert "deadline is at most 5 s" in create("slow", deadline=30).text
    assert create("second").status_code == 201
    third = create("third")  # alices-cup, alices-ab (an A/B test counts) and second are on
    assert third.status_code == 400 and "at most 3" in third.text
    test = {"name": "another-ab", "new": "alices:2", "base": "alices:1"}
    refused = client.post("/api/v1/abtests", headers=auth(alice), json=test)
    assert refused.status_code == 400 and "at most 3" in refused.text
    platform = client.app.state.platform  # the operator restarts it with a higher limit
    environ = {"ARENA_PRIVATE_MAX_RUNNING": "4", "ARENA_DATA_DIR": str(platform.settings.data_dir)}
    limits = Settings.from_env(environ).private_limits
    platform.settings = replace(platform.settings, private_limits=limits)
    assert create("third").status_code == 201


def test_a_private_tournament_never_reaches_the_public_leaderboard(app_and_token) -> None:
    """A private tournament against weak bots put the owner's bot first on /leaderboard."""
    client, token, arena = app_and_token
    played_tournament(client, token, arena, private=True)
    with arena.db.read() as session:
        assert [r for r in bot_queries.global_leaderboard(session) if r["tournament"]] == []
    played_competition(arena.db, "main", SAMPLES)
    with arena.db.read() as session:
        ranked = [r for r in bot_queries.global_leaderboard(session) if r["tournament"]]
    assert ranked and {r["tournament"] for r in ranked} == {"main-season-1"}
    board = client.get("/leaderboard").text
    assert "cup" not in re.findall(r'href="/tournaments/([^"]+)"', board)


def test_an_owner_stops_a_ladder_of_their_own(rivals) -> None:
    """A ladder started through the API could not be stopped through it."""
    client, alice, mallory, arena = rivals
    body = {"name": "alices-ladder", "bots": ["alices", *SAMPLES[:2]], "table_size": 3}
    made = client.post(
        "/api/v1/tournaments", headers=auth(alice), json={**body, "format": "ladder", "games": 1}
    )
    assert made.status_code == 201, made.text
    assert client.post("/api/v1/tournaments/alices-ladder/start", headers=auth(alice)).json() == {
        "name": "alices-ladder",
        "queued": 1,
    }
    stop = "/api/v1/tournaments/alices-ladder/stop"
    assert client.post(stop, headers=auth(mallory)).status_code == 403
    stopped = client.post(stop, headers=auth(alice))
    assert stopped.json() == {"name": "alices-ladder", "queued": 1}, stopped.text
    with arena.db.read() as session:
        assert tournaments.get(session, "alices-ladder").status is TournamentStatus.DONE
    round_robin = client.post("/api/v1/tournaments/alices-cup/stop", headers=auth(alice))
    assert round_robin.status_code == 400 and "not a ladder" in round_robin.text
