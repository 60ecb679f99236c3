"""The operator's moderation, checked against what the recorder does: ratings recomputed
after a void equal the recorder's own ratings of the same results in the same order, a
voided match leaves the ratings and totals, a disqualified bot leaves every leaderboard
and every new table at once and its team reads why, and each action is in the audit
log."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from arena.base.errors import Conflict, Forbidden
from arena.base.states import BotKind, MatchStatus
from arena.engine import Ruleset
from arena.services import operators
from arena.store import accounts, bots, matches, moderation, tournaments
from arena.store.db import Database
from arena.store.models import Entry, MatchSeat, RatingChange, Tournament, TournamentMatch
from arena.store.owners import add_owner
from arena.tournament import ratings
from tests.support.api import OPERATOR_TOKEN, auth
from tests.support.store import SAMPLES, add_samples, make_tournament, match_ids, play

#: the store's contract: on SQLite and PostgreSQL alike
pytestmark = pytest.mark.both_databases


def _record(db: Database, count: int | None = None) -> list[int]:
    ids = match_ids(db)[:count]
    for match_id in ids:
        plan = matches.claim(db, match_id, "test")
        assert plan is not None and matches.record(db, plan, play(plan), 1.0)
    return ids


def _ratings(db: Database, name: str) -> dict[int, tuple[float, float, int]]:
    with db.read() as session:
        tournament = tournaments.get(session, name)
        rows = session.scalars(select(Entry).where(Entry.tournament_id == tournament.id))
        return {e.bot_version_id: (e.mu, e.sigma, e.games) for e in rows}


def _changes(db: Database) -> list[tuple[int, int, int, float]]:
    with db.read() as session:
        rows = session.scalars(
            select(RatingChange).order_by(RatingChange.completion, RatingChange.bot_version_id)
        )
        return [(r.match_id, r.completion, r.bot_version_id, round(r.mu, 9)) for r in rows]


@pytest.mark.parametrize("duplicate", [False, True], ids=["single", "duplicate"])
def test_rerating_the_recorded_results_gives_the_recorders_ratings(
    db: Database, duplicate: bool
) -> None:
    make_tournament(db, games=8, duplicate=duplicate)
    _record(db)
    recorded, changes = _ratings(db, "t"), _changes(db)

    def again(session) -> None:
        moderation.rerate(session, tournaments.get(session, "t"))

    db.transaction(again)
    again_rated = _ratings(db, "t")
    assert again_rated.keys() == recorded.keys()
    for version, (mu, sigma, games) in recorded.items():
        assert again_rated[version] == (pytest.approx(mu), pytest.approx(sigma), games)
    assert _changes(db) == changes


def test_a_voided_match_leaves_the_ratings_as_if_it_was_never_played(db: Database) -> None:
    make_tournament(db, games=6)
    played = _record(db)
    voided = played[2]
    done = operators.void(db, voided, "a seat was run by the wrong binary", actor="ops")
    assert done.tournament == "t"
    with db.read() as session:
        tournament = session.scalar(select(Tournament))
        system = tournament.rating
        current: dict[int, ratings.Rating] = {}
        for match_id in played:
            if match_id == voided:
                continue
            seats = session.scalars(
                select(MatchSeat).where(MatchSeat.match_id == match_id).order_by(MatchSeat.seat)
            ).all()
            versions = [s.bot_version_id for s in seats]
            before = [current.get(v, system.start()) for v in versions]
            ranking = ratings.ranking_by_score([s.place for s in seats])
            current.update(zip(versions, system.rate(before, ranking), strict=True))
        assert session.get_one(TournamentMatch, voided).void_reason.startswith("a seat")
    after = _ratings(db, "t")
    for version, rating in current.items():
        assert after[version][:2] == pytest.approx((rating.mu, rating.sigma))
    assert sum(games for _, _, games in after.values()) == 4 * (len(played) - 1)
    with pytest.raises(Conflict, match="voided already"):
        operators.void(db, voided, "again")
    with db.read() as session:
        [entry] = operators.audit_log(session, 1)
    assert (entry.actor, entry.action, entry.target) == ("ops", "void match", f"match {voided}")


def test_a_disqualified_bot_leaves_the_board_and_the_tables_and_its_team_reads_why(
    app_and_token,
) -> None:
    client, alice, arena = app_and_token
    db = arena.db
    alice_id = db.transaction(lambda s: accounts.named(s, "alice").id)
    db.transaction(lambda s: bots.add_bot(s, "alices", BotKind.SAMPLE, "honest", alice_id))
    add_samples(db)
    field = ["alices", *SAMPLES[:3]]
    db.transaction(
        lambda s: tournaments.create(s, "cup", Ruleset.parse("classic"), field, 4, 6, seed="s")
    )
    db.transaction(lambda s: tournaments.start(s, "cup"))
    _record(db, 2)
    answer = client.post(
        "/api/v1/admin/bots/alices/disqualify",
        headers=auth(OPERATOR_TOKEN),
        json={"reason": "shares hands with a partner"},
    )
    assert answer.status_code == 200, answer.text
    board = client.get("/api/v1/tournaments/cup/leaderboard").json()
    assert "alices" not in {row["bot"] for row in board}
    for match_id in match_ids(db)[2:]:  # every later table of hers: stale, never played
        assert matches.claim(db, match_id, "test") is None
    with db.read() as session:
        statuses = set(session.scalars(select(TournamentMatch.status)))
    assert statuses == {MatchStatus.DONE, MatchStatus.STALE}
    theirs = client.get("/api/v1/bots/alices", headers=auth(alice)).json()
    assert theirs["disqualified"] and theirs["disqualified_reason"] == "shares hands with a partner"
    assert theirs["versions"][0]["state"] == "disqualified"
    public = client.get("/api/v1/bots/alices").json()
    assert public["disqualified"] and public["disqualified_reason"] is None
    refused = client.post(
        "/api/v1/bots/alices/versions",
        headers=auth(alice),
        json={"kind": "sample", "target": "random"},
    )
    assert refused.status_code == 403 and "disqualified" in refused.text
    with pytest.raises(Conflict):
        operators.disqualify(db, "alices", "twice")
    _, mallory = db.transaction(lambda s: add_owner(s, "mallory"))
    stolen = client.post(
        "/api/v1/admin/bots/cup/disqualify", headers=auth(mallory), json={"reason": "x"}
    )
    assert stolen.status_code == 401
    with pytest.raises(Forbidden):
        db.transaction(lambda s: bots.add_version(s, "alices", BotKind.SAMPLE, "random", alice_id))
