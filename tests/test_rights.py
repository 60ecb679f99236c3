"""Owners' rights, tried by a hostile owner through the HTTP API: every route's rights
as docs/api.md's table gives them, private tournaments within their limits, and none
of them on the public leaderboard."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from arena.base.states import TournamentStatus
from arena.platform.settings import Settings
from arena.services.views import bots as bot_queries
from arena.store import tournaments
from tests.support.api import OPERATOR_TOKEN, auth, played_tournament
from tests.support.rights import ROLES, Scene, attempts, documented, scene, with_match
from tests.support.store import SAMPLES, match_ids, played_competition

#: the store's contract: on SQLite and PostgreSQL alike
pytestmark = pytest.mark.both_databases


@pytest.fixture
def rivals(app_and_token):
    """The rights table's scene (tests/support/rights.py): alice, her bot and private
    work; mallory, in another team; as (client, alice, mallory, arena)."""
    client, alice, arena = app_and_token
    made = scene(client, alice, arena)
    return client, alice, made.mallory, arena


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
    """Nobody and another team's member, route by route (their writes change nothing:
    every one is refused); tests/test_team_rights.py asks the other three callers."""
    client, _, _, arena = rivals
    [match_id, *_] = match_ids(arena.db)
    urls = with_match(attempts(), match_id)
    made = Scene(client, arena, "", "", rivals[2])
    for (method, path), answers in documented().items():
        url, body = urls[(method, path)]
        for role in ROLES[:2]:
            if answers[role] == "—":
                continue
            answer = client.request(method, url, json=body, headers=made.headers(role))
            client.cookies.clear()  # a sign-up's session is not the next caller's
            allowed = {int(answers[role])}
            if method == "GET":  # a public read: found or not, never a question of rights
                allowed.add(404)
            assert answer.status_code in allowed, (method, path, role, answer.text)


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
    private = client.post("/api/v1/tournaments/alices-cup/stop", headers=auth(alice))
    assert private.status_code == 200, private.text  # her own run, of any format
    operators = client.post("/api/v1/tournaments/open/stop", headers=auth(OPERATOR_TOKEN))
    assert operators.status_code == 400 and "not a ladder" in operators.text
