"""Teams, tried as people and attackers would: a captain invites by a one-time code (used
twice: refused), members submit and manage the team's bots and nobody else does, a
person plays in one team per competition (Kaggle's rule), teams that share a person never
share a table, and every owner of an earlier release becomes a team of one (the
migration)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from alembic import command
from sqlalchemy import select, text

from arena.base.errors import Conflict, Forbidden, Invalid, NotFound
from arena.base.people import CAPTAIN, MEMBER, Caller
from arena.base.states import BotKind
from arena.engine import Ruleset
from arena.services import teams as team_service
from arena.store import bots, competitions, teams
from arena.store.db import Database
from arena.store.models import Owner, RegisteredBot, now
from arena.store.owners import add_owner
from arena.store.schema import alembic_config
from tests.support.api import auth
from tests.support.store import SAMPLES, add_samples

#: the store's contract: on SQLite and PostgreSQL alike
pytestmark = pytest.mark.both_databases


def _person(db: Database, name: str) -> Caller:
    owner, _ = db.transaction(lambda s: add_owner(s, name))
    return Caller(owner.id, owner.name)


def _bot(db: Database, name: str, owner: Caller, team: str | None = None) -> None:
    def made(session) -> None:
        team_id = teams.named(session, team).id if team else None
        bots.add_bot(session, name, BotKind.SAMPLE, "honest", owner.id, team_id)

    db.transaction(made)


def test_every_account_starts_as_the_captain_of_a_team_of_one(db: Database) -> None:
    alice = _person(db, "alice")
    _bot(db, "alices", alice)
    with db.read() as session:
        [team] = teams.teams_of(session, alice.id)
        assert team.name == "alice"
        assert teams.role_of(session, team.id, alice.id) == CAPTAIN
        assert [b.name for b in teams.bots_of(session, team.id)] == ["alices"]


def test_a_captain_invites_a_member_who_then_manages_the_teams_bots(db: Database) -> None:
    alice, bob, eve = _person(db, "alice"), _person(db, "bob"), _person(db, "eve")
    team_service.create(db, alice, "stars")
    _bot(db, "starbot", alice, team="stars")
    with pytest.raises(Forbidden):  # not in the team yet
        db.transaction(lambda s: bots.add_version(s, "starbot", BotKind.SAMPLE, "random", bob.id))
    code = team_service.invite(db, alice, "stars").code
    joined = team_service.join(db, bob, code)
    assert [(m.name, m.role) for m in joined.members] == [("alice", CAPTAIN), ("bob", MEMBER)]
    version = db.transaction(
        lambda s: bots.add_version(s, "starbot", BotKind.SAMPLE, "random", bob.id).number
    )
    assert version == 2
    with pytest.raises(Conflict, match="used already"):
        team_service.join(db, eve, code)
    with pytest.raises(Forbidden, match="belongs to a team you are not in"):
        db.transaction(lambda s: bots.add_version(s, "starbot", BotKind.SAMPLE, "random", eve.id))
    with pytest.raises(Forbidden, match="only the captain"):
        team_service.invite(db, bob, "stars")
    with pytest.raises(Forbidden, match="only the captain"):
        team_service.remove(db, bob, "stars", "alice")


def test_an_invitation_expires_and_a_made_up_code_opens_nothing(db: Database) -> None:
    alice, bob = _person(db, "alice"), _person(db, "bob")
    moment = now()
    code = team_service.invite(db, alice, "alice", clock=lambda: moment).code
    later = moment + team_service.INVITE_LASTS + timedelta(seconds=1)
    with pytest.raises(Invalid, match="expired"):
        team_service.join(db, bob, code, clock=lambda: later)
    with pytest.raises(NotFound):
        team_service.join(db, bob, code + "x")


def test_a_captain_leaving_hands_the_team_over_and_the_last_member_stays(db: Database) -> None:
    alice, bob, carol = _person(db, "alice"), _person(db, "bob"), _person(db, "carol")
    team_service.create(db, alice, "stars")
    for person in (bob, carol):
        team_service.join(db, person, team_service.invite(db, alice, "stars").code)
    left = team_service.leave(db, alice, "stars")
    assert [(m.name, m.role) for m in left.members] == [("bob", CAPTAIN), ("carol", MEMBER)]
    assert [m.name for m in team_service.remove(db, bob, "stars", "carol").members] == ["bob"]
    with pytest.raises(Conflict, match="last member"):
        team_service.leave(db, bob, "stars")
    with pytest.raises(NotFound):
        team_service.leave(db, carol, "stars")


def test_a_person_plays_in_one_team_per_competition(db: Database) -> None:
    """Kaggle's rule: entering a second team's bot where one of its people already plays
    for another team is refused with the reason, and so is joining such a team."""
    add_samples(db)
    alice, bob = _person(db, "alice"), _person(db, "bob")
    team_service.create(db, alice, "stars")
    team_service.join(db, bob, team_service.invite(db, alice, "stars").code)
    _bot(db, "bobs", bob)  # bob's own team
    _bot(db, "starbot", alice, team="stars")
    rules = Ruleset.parse("classic")
    db.transaction(lambda s: competitions.create(s, "main", rules, 4, bot_names=SAMPLES))

    def enter(name: str) -> None:
        db.transaction(lambda s: competitions.enter(s, competitions.get(s, "main"), name))

    enter("bobs")
    with pytest.raises(Forbidden, match="bob plays in competition 'main' for team 'bob'"):
        enter("starbot")
    carol = _person(db, "carol")
    _bot(db, "carols", carol)
    enter("carols")
    with pytest.raises(Forbidden, match="a person plays in one team per competition"):
        team_service.join(db, carol, team_service.invite(db, bob, "bob").code)


def test_teams_that_share_a_person_are_one_household_at_the_tables(db: Database) -> None:
    """Bots of one team, or of two teams with a person in common, never share a table."""
    alice, bob, carol = _person(db, "alice"), _person(db, "bob"), _person(db, "carol")
    team_service.create(db, alice, "stars")
    team_service.join(db, bob, team_service.invite(db, alice, "stars").code)
    for name, owner, team in (
        ("a1", alice, None),
        ("a2", alice, "stars"),
        ("b1", bob, None),
        ("c1", carol, None),
    ):
        _bot(db, name, owner, team)
    with db.read() as session:
        versions = {bot.name: bot.versions[0].id for bot in session.scalars(select(RegisteredBot))}
        household = teams.households(session, list(versions.values()))
    by_name = {name: household[version] for name, version in versions.items()}
    assert by_name["a1"] == by_name["a2"] == by_name["b1"] != by_name["c1"]


def test_the_api_makes_a_team_invites_joins_and_submits_for_it(app_and_token) -> None:
    client, alice, arena = app_and_token
    _, bob = arena.db.transaction(lambda s: add_owner(s, "bob"))
    made = client.post("/api/v1/teams", headers=auth(alice), json={"name": "stars"})
    assert made.status_code == 201, made.text
    code = client.post("/api/v1/teams/stars/invites", headers=auth(alice)).json()["code"]
    assert client.post("/api/v1/teams/stars/invites", headers=auth(bob)).status_code == 403
    joined = client.post("/api/v1/teams/join", headers=auth(bob), json={"code": code})
    assert joined.status_code == 200, joined.text
    again = client.post("/api/v1/teams/join", headers=auth(bob), json={"code": code})
    assert again.status_code == 409
    submitted = client.post(
        "/api/v1/bots",
        headers=auth(bob),
        json={"name": "starbot", "kind": "sample", "target": "honest", "team": "stars"},
    )
    assert submitted.status_code == 202, submitted.text
    public = client.get("/api/v1/teams/stars").json()
    assert [m["name"] for m in public["members"]] == ["alice", "bob"]
    assert [b["name"] for b in public["bots"]] == ["starbot"]
    mine = client.get("/api/v1/account/teams", headers=auth(bob)).json()
    assert sorted(t["name"] for t in mine) == ["bob", "stars"]
    _, eve = arena.db.transaction(lambda s: add_owner(s, "eve"))
    foreign = client.post(
        "/api/v1/bots",
        headers=auth(eve),
        json={"name": "evebot", "kind": "sample", "target": "honest", "team": "stars"},
    )
    assert foreign.status_code == 403 and "not in team 'stars'" in foreign.text


def test_the_migration_makes_each_owner_a_team_of_one_with_its_bots(db: Database) -> None:
    config = alembic_config()
    with db.engine.connect() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0024")
        connection.commit()
    at = {"at": datetime(2026, 1, 1)}
    with db.engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO owners (name, token_hash, created_at, role)"
                " VALUES ('Dora', 'h1', :at, 'owner'), ('ed', 'h2', :at, 'owner')"
            ),
            at,
        )
        connection.execute(
            text(
                "INSERT INTO bots (name, owner_id, created_at, people_may_play, scrimmage_rival)"
                " SELECT 'doras', id, :at, true, true FROM owners WHERE name = 'Dora'"
            ),
            at,
        )
    with db.engine.connect() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
        connection.commit()
    with db.read() as session:
        dora = session.scalar(select(Owner).where(Owner.name == "Dora"))
        [team] = teams.teams_of(session, dora.id)
        assert team.name == "Dora" and teams.role_of(session, team.id, dora.id) == CAPTAIN
        assert [b.name for b in teams.bots_of(session, team.id)] == ["doras"]
        ed = session.scalar(select(Owner).where(Owner.name == "ed"))
        assert [t.name for t in teams.teams_of(session, ed.id)] == ["ed"]
