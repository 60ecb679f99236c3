"""Scrimmages: an owner's unranked matches of any qualified version of their bot against
rivals they choose, played by real workers in sandboxes after ranked work, read on
/owner and never on the leaderboard; rivals whose owners opt out are refused."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from arena.base import jobs
from arena.base.errors import Forbidden, Invalid
from arena.base.states import BotKind, VersionStatus
from arena.engine import Ruleset
from arena.platform import Platform
from arena.services import releases as release_service
from arena.services import scrimmages as scrimmage_service
from arena.services import tables as table_service
from arena.services.views import bots as bot_queries
from arena.store import bots
from arena.store import matches as match_store
from arena.store.limits import PrivateLimits
from arena.store.models import MatchSeat, Owner, Tournament, TournamentMatch
from arena.store.owners import add_owner
from tests.sandboxing import PLAIN_BOT
from tests.support.api import auth
from tests.support.cli import arena as arena_command
from tests.support.cli import environment, run_queued_jobs
from tests.support.store import play


def _owned(arena: Platform, owner: str, bot: str, sample: str = "counter") -> Owner:
    """An owner (made now if new) with a sample-kind bot of their own."""
    with arena.db.read() as session:
        found = session.query(Owner).filter_by(name=owner).one_or_none()
    if found is None:
        found, _ = arena.db.transaction(lambda s: add_owner(s, owner))
    owner_id = found.id
    arena.db.transaction(lambda s: bots.add_bot(s, bot, BotKind.SAMPLE, sample, owner_id=owner_id))
    return found


@pytest.mark.sandbox
@pytest.mark.processes
def test_an_uploaded_version_scrimmages_chosen_rivals_in_sandboxes_off_the_leaderboard(
    app_and_token: tuple[TestClient, str, Platform],
) -> None:
    client, token, arena = app_and_token
    uploaded = client.post(
        "/api/v1/bots",
        headers=auth(token),
        json={"name": "up", "kind": "python", "source": PLAIN_BOT.read_text()},
    )
    assert uploaded.status_code == 202, uploaded.text
    run_queued_jobs(arena)  # qualified
    _owned(arena, "mallory", "mals")
    made = client.post(
        "/api/v1/scrimmages",
        headers=auth(token),
        json={"bot": "up:1", "against": ["sample:counter", "mals"], "games": 6},
    )
    assert made.status_code == 201, made.text
    scrimmage = made.json()
    assert scrimmage["queued"] == 6 and scrimmage["bot"] == "up v1"
    assert scrimmage["against"] == ["counter v1", "mals v1"]
    with arena.db.read() as session:
        job_ids = [m.job_id for m in _matches_of(session, scrimmage["name"])]
    assert len(job_ids) == 6 and all(jobs.is_private(job) for job in job_ids)  # after ranked
    run_queued_jobs(arena)
    [mine] = client.get("/api/v1/owners/me/scrimmages", headers=auth(token)).json()
    assert mine["name"] == scrimmage["name"] and mine["played"] == 6
    assert mine["status"] == "done"
    assert sorted(line["bot"] for line in mine["results"]) == ["counter", "mals", "up"]
    assert all(line["games"] == 6 and line["forfeits"] == 0 for line in mine["results"])
    assert sum(line["wins"] for line in mine["results"]) >= 6
    with arena.db.read() as session:
        seats = (
            session.query(MatchSeat)
            .join(TournamentMatch, TournamentMatch.id == MatchSeat.match_id)
            .filter(MatchSeat.version.has(kind=BotKind.PATH))
            .all()
        )
        played = [seat for seat in seats if seat.decisions]
        assert len(played) >= 6, "the uploaded version played every scrimmage match"
        assert [r for r in bot_queries.global_leaderboard(session) if r["tournament"]] == []
    theirs = client.get(
        "/api/v1/owners/me/scrimmages",
        headers=auth(arena.db.transaction(lambda s: add_owner(s, "eve"))[1]),
    )
    assert theirs.json() == []


@pytest.fixture
def owners_bots(db) -> tuple[Owner, Owner]:
    alice, _ = db.transaction(lambda s: add_owner(s, "alice"))
    mallory, _ = db.transaction(lambda s: add_owner(s, "mallory"))
    db.transaction(lambda s: bots.add_bot(s, "alices", BotKind.SAMPLE, "honest", alice.id))
    db.transaction(lambda s: bots.add_bot(s, "mals", BotKind.SAMPLE, "counter", mallory.id))
    db.transaction(lambda s: bots.register_sample(s, "random"))
    return alice, mallory


def _scrimmage(db, owner: Owner | None, bot: str, rivals: list[str], games: int = 4) -> str:
    return db.transaction(
        lambda s: (
            scrimmage_service.create_in(
                s,
                bot,
                rivals,
                games,
                Ruleset.parse("classic"),
                s.get(Owner, owner.id) if owner else None,
                PrivateLimits(games=50, running=2),
            ).name
        )
    )


@pytest.mark.parametrize(
    ("bot", "rivals", "games", "refusal", "said"),
    [
        ("mals", ["sample:random"], 4, Forbidden, "is not a bot of your teams"),
        ("alices", [], 4, Invalid, "at least one rival"),
        ("alices", ["alices"], 4, Invalid, "seats each bot once"),
        ("alices", ["sample:random"], 51, Invalid, "at most 50 games"),
        ("alices", ["nobody"], 4, Invalid, "no bot named"),
        ("alices", ["sample:nobody"], 4, Invalid, "no sample bot 'nobody': expected one of random"),
        ("random", ["sample:counter"], 4, Forbidden, "is not a bot of your teams"),
    ],
)
def test_a_scrimmage_that_cannot_be_is_refused_with_the_reason(
    db, owners_bots, bot: str, rivals: list[str], games: int, refusal: type, said: str
) -> None:
    alice, _ = owners_bots
    with pytest.raises(refusal, match=said):
        _scrimmage(db, alice, bot, rivals, games)


def test_an_owner_may_keep_their_bot_out_of_other_owners_scrimmages(db, owners_bots) -> None:
    alice, mallory = owners_bots
    first = _scrimmage(db, alice, "alices", ["mals", "sample:random"])
    db.transaction(lambda s: bots_consent(s, "mals", mallory, scrimmages=False))
    with pytest.raises(Forbidden, match="does not let it be a scrimmage's rival"):
        _scrimmage(db, alice, "alices", ["mals"])
    assert _scrimmage(db, mallory, "mals", ["alices"])  # their own scrimmages still may
    with db.read() as session:
        assert _matches_of(session, first)
        assert session.query(Tournament).filter_by(name=first).one().format == "scrimmage"


def test_the_running_limit_counts_scrimmages_with_private_tournaments(db, owners_bots) -> None:
    alice, _ = owners_bots
    _scrimmage(db, alice, "alices", ["sample:random"])
    _scrimmage(db, alice, "alices", ["sample:counter"])
    with pytest.raises(Invalid, match="not over yet"):
        _scrimmage(db, alice, "alices", ["sample:honest"])


def _matches_of(session, name: str) -> list[TournamentMatch]:
    return (
        session.query(TournamentMatch)
        .join(Tournament, Tournament.id == TournamentMatch.tournament_id)
        .filter(Tournament.name == name)
        .all()
    )


def bots_consent(session, name: str, owner: Owner, **consent: bool) -> None:

    release_service.set_consent_in(session, name, session.get(Owner, owner.id), **consent)


@pytest.mark.processes
def test_the_command_queues_a_scrimmage_for_the_bots_owner(
    app_and_token: tuple[TestClient, str, Platform],
) -> None:
    client, token, arena = app_and_token
    _owned(arena, "alice", "alices", "honest")
    env = environment(arena.settings)
    made = arena_command(
        "scrimmage", "alices", "--against", "sample:random,sample:counter", "--games", "3",
        "--json", env=env,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    shown = json.loads(made.stdout)
    assert shown["queued"] == 3 and shown["against"] == ["random v1", "counter v1"]
    run_queued_jobs(arena)
    [mine] = client.get("/api/v1/owners/me/scrimmages", headers=auth(token)).json()
    assert mine["played"] == 3 and mine["name"] == shown["name"]
    with arena.db.read() as session:
        [found] = scrimmage_service.of_owner(
            session, session.query(Owner).filter_by(name="alice").one()
        )
        assert found.played == 3
    refused = arena_command("scrimmage", "alices", "--against", "alices", env=env)
    assert refused.returncode == 2 and "seats each bot once" in refused.stderr


def test_a_scrimmage_that_cannot_be_queued_holds_no_run_and_its_owner_stops_one(
    app_and_token: tuple[TestClient, str, Platform],
) -> None:
    """With no platform answering, the command fails and leaves nothing that counts
    against the owner's private runs; a scrimmage in play is stopped from the API by
    its owner (it was "not a ladder")."""
    client, token, arena = app_and_token
    _owned(arena, "alice", "alices", "honest")
    down = {k: v for k, v in environment(arena.settings).items() if k != "REDIS_URL"}
    for _ in range(4):  # more than the 3 private runs an owner may have at once
        failed = arena_command("scrimmage", "alices", "--against", "sample:random", env=down)
        assert failed.returncode == 1 and "is cancelled: it could not be queued" in failed.stderr
    assert [s["status"] for s in client.get(
        "/api/v1/owners/me/scrimmages", headers=auth(token)
    ).json()] == ["done"] * 4  # fmt: skip
    made = client.post(
        "/api/v1/scrimmages",
        headers=auth(token),
        json={"bot": "alices", "against": ["sample:random"], "games": 3},
    )
    assert made.status_code == 201, made.text
    name = made.json()["name"]
    stopped = client.post(f"/api/v1/tournaments/{name}/stop", headers=auth(token))
    assert stopped.status_code == 200, stopped.text
    again = client.post(f"/api/v1/tournaments/{name}/stop", headers=auth(token))
    assert again.status_code == 409 and "is over" in again.text


def test_a_staged_version_is_seated_by_its_owner_alone(db, owners_bots) -> None:
    """Anyone could sit with bobbot:2 while it was staged, or pick it as a rival: a
    version that is not live is its owner's until promoted."""
    alice, mallory = owners_bots

    def staged(session) -> None:
        version = bots.add_version(
            session, "mals", BotKind.SAMPLE, "honest", mallory.id, retire_others=False
        )
        version.status = VersionStatus.READY

    db.transaction(staged)
    with pytest.raises(Forbidden, match="mals v2 is not live"):
        _scrimmage(db, alice, "alices", ["mals:2"])
    assert _scrimmage(db, alice, "alices", ["mals"])  # the live one may be
    assert _scrimmage(db, mallory, "mals:2", ["alices"])  # its owner may
    table = table_service.TableRequest(("mals:2", "sample:random"))
    with db.read() as session:
        for person in (None, session.get(Owner, alice.id)):
            with pytest.raises(Forbidden, match="not live"):
                table_service.plan(session, table, person)
        assert table_service.plan(session, table, session.get(Owner, mallory.id)).bots


def test_a_scrimmage_is_its_owners_alone_on_every_public_route(
    app_and_token: tuple[TestClient, str, Platform],
) -> None:
    """A scrimmage's list, results and logs were public: only its owner reads them."""
    client, token, arena = app_and_token
    _owned(arena, "alice", "mine")
    made = client.post(
        "/api/v1/scrimmages",
        headers=auth(token),
        json={"bot": "mine", "against": ["sample:random"], "games": 2},
    )
    assert made.status_code == 201, made.text
    name = made.json()["name"]
    with arena.db.read() as session:
        ids = [m.id for m in _matches_of(session, name)]
    for match_id in ids:
        plan = match_store.claim(arena.db, match_id, "w")
        assert plan is not None and match_store.record(arena.db, plan, play(plan), 1.0)
    _, eve = arena.db.transaction(lambda s: add_owner(s, "eve"))
    for headers in ({}, auth(eve)):
        listed = client.get("/api/v1/matches", headers=headers).json()["items"]
        assert not {m["id"] for m in listed} & set(ids)
        assert name not in client.get("/api/v1/tournaments", headers=headers).text
        assert name not in client.get("/", headers=headers).text
        assert name not in client.get("/bots/mine", headers=headers).text
        for route in (
            f"/api/v1/tournaments/{name}",
            f"/tournaments/{name}",
            f"/api/v1/tournaments/{name}/fairplay",
            f"/api/v1/matches/{ids[0]}",
            f"/matches/{ids[0]}",
            f"/api/v1/matches/{ids[0]}/log",
            f"/api/v1/matches/{ids[0]}/replay",
        ):
            assert client.get(route, headers=headers).status_code == 404, route
    for route in (f"/api/v1/tournaments/{name}", f"/api/v1/matches/{ids[0]}/log"):
        assert client.get(route, headers=auth(token)).status_code == 200, route
    mine = client.get("/api/v1/matches", headers=auth(token)).json()["items"]
    assert set(ids) <= {m["id"] for m in mine}
