"""Competitions: a submitted bot is ranked with no other step, its newer version takes
its place, and the operator pauses, closes and reopens the competition."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select, update

from arena.base.errors import Invalid
from arena.base.states import BotKind, CompetitionStatus, MatchStatus, TournamentStatus
from arena.engine import Ruleset
from arena.platform import Platform
from arena.platform.settings import Settings
from arena.platform.submission import submit
from arena.store import competitions, ladder, matches
from arena.store.models import Competition, Entry, TournamentMatch, now
from arena.tournament import ratings
from tests.support.store import SAMPLES, add_samples, play
from tests.support.workers import assert_ratings_replay

#: the store's contract: on SQLite and PostgreSQL alike
pytestmark = pytest.mark.both_databases

RULES = Ruleset.parse("classic")


def ladder_id(arena: Platform, name: str = "main") -> int:
    with arena.db.read() as session:
        return competitions.get(session, name).tournament_id


def play_open_tables(arena: Platform, tournament_id: int, rounds: int) -> None:
    """Record the tables in play, refilling as a worker does, ``rounds`` times."""
    for _ in range(rounds):
        with arena.db.read() as session:
            open_ids = session.scalars(
                select(TournamentMatch.id).where(
                    TournamentMatch.tournament_id == tournament_id,
                    TournamentMatch.status.in_([MatchStatus.QUEUED, MatchStatus.RUNNING]),
                )
            ).all()
        for match_id in open_ids:
            plan = matches.claim(arena.db, match_id, "test")
            if plan is not None:  # None: stale, a seated version was replaced since
                assert matches.record(arena.db, plan, play(plan), 1.0)
        ladder.refill(arena.db, tournament_id)


def test_a_submitted_bot_is_ranked_in_the_default_competition_by_itself(
    settings: Settings,
) -> None:
    arena = Platform(settings)
    add_samples(arena.db, ["random", "counter"])
    arena.db.transaction(
        lambda s: competitions.create(
            s, "main", RULES, 3, tables=1, bot_names=["random", "counter"], default=True
        )
    )
    tournament = ladder_id(arena)
    assert ladder.refill(arena.db, tournament) == [], "two bots: no table of three yet"
    first = submit(arena, "newcomer", BotKind.SAMPLE, "honest")  # qualified here and now
    assert first.accepted and "now playing in main" in first.reason, first.reason
    assert len(first.jobs) == 1, "its first table is seated as it goes live, not later"
    assert ladder.refill(arena.db, tournament) == [], "the one table is in play"
    play_open_tables(arena, tournament, 6)
    with arena.db.read() as session:
        standing = competitions.summary(session, competitions.get(session, "main"))
    assert {row.bot for row in standing["leaderboard"]} == {"random", "counter", "newcomer"}
    assert all(row.games > 0 for row in standing["leaderboard"])

    second = submit(arena, "newcomer", BotKind.SAMPLE, "bluffer")
    assert second.accepted and second.version == 2
    play_open_tables(arena, tournament, 3)  # a table of version 1 may still be in play
    with arena.db.read() as session:
        board = competitions.summary(session, competitions.get(session, "main"))["leaderboard"]
        retired = session.scalars(select(Entry).where(Entry.retired.is_(True))).all()
        newest_table = session.scalar(
            select(TournamentMatch)
            .where(TournamentMatch.tournament_id == tournament)
            .order_by(TournamentMatch.id.desc())
        )
        newest = {seat.bot_version_id for seat in newest_table.seats}
    assert [(r.bot, r.version) for r in board if r.bot == "newcomer"] == [("newcomer", 2)], (
        "the newer version takes the older one's place"
    )
    assert len(retired) == 1 and retired[0].bot_version_id not in newest


def test_a_competition_pauses_closes_with_final_standings_and_opens_a_new_season(
    settings: Settings,
) -> None:
    arena = Platform(settings)
    add_samples(arena.db, ["random", "counter", "honest"])
    arena.db.transaction(
        lambda s: competitions.create(
            s, "cup", RULES, 3, tables=1, bot_names=["random", "counter", "honest"]
        )
    )
    tournament = ladder_id(arena, "cup")
    play_open_tables(arena, tournament, 1)
    arena.db.transaction(lambda s: competitions.set_status(s, "cup", CompetitionStatus.PAUSED))
    play_open_tables(arena, tournament, 1)  # the table in play finishes; no new one
    with arena.db.read() as session:
        left = session.scalars(
            select(TournamentMatch).where(
                TournamentMatch.tournament_id == tournament,
                TournamentMatch.status == MatchStatus.QUEUED,
            )
        ).all()
    assert left == []
    arena.db.transaction(lambda s: competitions.set_status(s, "cup", CompetitionStatus.OPEN))
    assert len(ladder.refill(arena.db, tournament)) == 1
    play_open_tables(arena, tournament, 2)
    arena.db.transaction(lambda s: competitions.set_status(s, "cup", CompetitionStatus.CLOSED))
    with arena.db.read() as session:
        cup = competitions.get(session, "cup")
        final = competitions.summary(session, cup)
        assert cup.tournament.status is TournamentStatus.DONE
    assert ladder.refill(arena.db, tournament) == []
    season = arena.db.transaction(lambda s: competitions.new_season(s, "cup").season)
    assert season == 2
    with arena.db.read() as session:
        fresh = competitions.summary(session, competitions.get(session, "cup"))
    assert fresh["season"] == 2 and fresh["ladder"] == "cup-season-2"
    assert all(row.games == 0 for row in fresh["leaderboard"]) and len(fresh["leaderboard"]) == 3
    assert sum(row.games for row in final["leaderboard"]) > 0, "season 1 keeps its standings"


def test_a_competition_on_openskill_rates_every_result_with_it_and_ranks_by_it(
    settings: Settings,
) -> None:
    arena = Platform(settings)
    add_samples(arena.db, ["random", "counter", "honest", "bluffer"])
    arena.db.transaction(
        lambda s: competitions.create(
            s, "open", RULES, 3, tables=2, bot_names=["random", "counter", "honest", "bluffer"],
            rating="openskill", pace=None,
        )
    )  # fmt: skip
    tournament = ladder_id(arena, "open")
    play_open_tables(arena, tournament, 8)
    assert_ratings_replay(arena)  # every stored rating is OpenSkill's over the results
    with arena.db.read() as session:
        summary = competitions.summary(session, competitions.get(session, "open"))
        entries = session.scalars(select(Entry)).all()
    assert summary["rating"] == "openskill"
    board = summary["leaderboard"]
    assert all(row.games > 0 for row in board) and len(board) == 4
    assert [row.score for row in board] == sorted((row.score for row in board), reverse=True)
    start = ratings.named("trueskill").start()
    assert all((e.mu, e.sigma) != (start.mu, start.sigma) for e in entries)
    with pytest.raises(Invalid, match="unknown rating system 'glicko'"):
        arena.db.transaction(lambda s: competitions.create(s, "glicko", RULES, 3, rating="glicko"))


def test_a_competition_plays_between_its_opening_and_its_closing(settings: Settings) -> None:
    arena = Platform(settings)
    add_samples(arena.db, ["random", "counter", "honest"])
    later = now() + timedelta(days=1)
    arena.db.transaction(
        lambda s: competitions.create(
            s, "spring", RULES, 3, tables=1, bot_names=["random", "counter", "honest"],
            opens_at=later,
        )
    )  # fmt: skip
    tournament = ladder_id(arena, "spring")
    assert ladder.refill(arena.db, tournament) == [], "not open yet"

    def move(**window: object) -> None:
        arena.db.transaction(lambda s: s.execute(update(Competition).values(**window)))

    move(opens_at=now() - timedelta(minutes=1), closes_at=later)
    assert len(ladder.refill(arena.db, tournament)) == 1, "open now"
    play_open_tables(arena, tournament, 1)
    move(closes_at=now() - timedelta(seconds=1))
    assert ladder.refill(arena.db, tournament) == [], "closed"
    with arena.db.read() as session:
        spring = competitions.get(session, "spring")
        assert spring.status is CompetitionStatus.CLOSED
        assert spring.tournament.status is TournamentStatus.DONE, "its standings are final"
    with pytest.raises(Invalid, match="closes after it opens"):
        arena.db.transaction(
            lambda s: competitions.create(s, "odd", RULES, 3, opens_at=later, closes_at=later)
        )


def test_a_duplicate_ladder_plays_each_table_once_per_rotation_on_one_deal(
    settings: Settings,
) -> None:
    from arena.services.views.disclosure import disclosure
    from arena.store.models import RatingChange, Tournament

    arena = Platform(settings)
    add_samples(arena.db)
    arena.db.transaction(
        lambda s: competitions.create(
            s, "dup", RULES, 3, tables=2, bot_names=SAMPLES, format="duplicate-ladder"
        )
    )
    tournament_id = ladder_id(arena, "dup")
    queued = ladder.refill(arena.db, tournament_id)
    assert len(queued) == 6, "two tables, each in three rotations"
    with arena.db.read() as session:
        groups: dict[int, list[TournamentMatch]] = {}
        for match in session.scalars(
            select(TournamentMatch).where(TournamentMatch.tournament_id == tournament_id)
        ):
            groups.setdefault(match.deal_group, []).append(match)
        assert len(groups) == 2
        for rotations in groups.values():
            assert len({m.seed for m in rotations}) == 1, "one deal for the rotations"
            tables = [[s.bot_version_id for s in m.seats] for m in rotations]
            first = tables[0]
            assert sorted(tables) == sorted(first[k:] + first[:k] for k in range(3))
        [one, *_] = sorted(groups[min(groups)], key=lambda m: m.index)
    plan = matches.claim(arena.db, one.id, "test")
    assert plan is not None and matches.record(arena.db, plan, play(plan), 1.0)
    assert ladder.refill(arena.db, tournament_id) == [], "a table is in play until all rotations"
    with arena.db.read() as session:
        tournament = session.get(Tournament, tournament_id)
        played = session.get(TournamentMatch, one.id)
        later = played.finished_at + timedelta(seconds=tournament.reveal_delay + 1)
        shown = disclosure(session, played, tournament, later)
        assert not shown.public, "its hands would give the other rotations away"
        assert not session.scalars(select(RatingChange)).all(), "rated once the group is over"
    play_open_tables(arena, tournament_id, 1)
    with arena.db.read() as session:
        changes = session.scalars(select(RatingChange.match_id).distinct()).all()
        assert len(changes) == 2, "one rating update per table, not per rotation"
        summary = competitions.summary(session, competitions.get(session, "dup"))
    assert summary["format"] == "duplicate-ladder"
    games = [row.games for row in summary["leaderboard"]]
    assert sum(games) == 2 * 3 * 3 and all(g % 3 == 0 for g in games), "every rotation counts"


def test_a_duplicate_competition_seats_no_endpoint_it_cannot_give_a_fresh_memory(
    settings: Settings,
) -> None:
    """A bot served from its owner's machine keeps what it saw; in a duplicate ladder it
    would know the other seats' hands in the next rotation of a deal."""
    from arena.store import bots

    arena = Platform(settings)
    add_samples(arena.db)
    arena.db.transaction(lambda s: bots.add_bot(s, "far", BotKind.ENDPOINT, "127.0.0.1:1"))
    for name, format in [("dup", "duplicate-ladder"), ("plain", "ladder")]:
        arena.db.transaction(
            lambda s, name=name, format=format: competitions.create(
                s, name, RULES, 3, bot_names=SAMPLES, format=format
            )
        )
    with pytest.raises(Invalid, match="uploaded bots only: a bot served from its owner"):
        arena.db.transaction(lambda s: competitions.enter(s, competitions.get(s, "dup"), "far"))
    arena.db.transaction(lambda s: competitions.enter(s, competitions.get(s, "plain"), "far"))
    with arena.db.read() as session:
        seated = {
            name: session.scalars(
                select(Entry.bot_version_id).where(
                    Entry.tournament_id == competitions.get(session, name).tournament_id
                )
            ).all()
            for name in ("dup", "plain")
        }
    assert len(seated["plain"]) == len(SAMPLES) + 1 and len(seated["dup"]) == len(SAMPLES)


def test_the_operator_runs_a_competition_through_the_api(app_and_token, settings) -> None:
    from fastapi.testclient import TestClient

    from dashboard.app import create_app
    from tests.support.api import OPERATOR_TOKEN, auth

    client, alice, arena = app_and_token
    add_samples(arena.db)
    body = {
        "name": "cup",
        "bots": SAMPLES,
        "table_size": 3,
        "format": "duplicate-ladder",
        "rating": "openskill",
    }
    assert client.post("/api/v1/competitions", json=body, headers=auth(alice)).status_code == 401
    unknown = {**body, "name": "glicko-cup", "rating": "glicko"}
    refused = client.post("/api/v1/competitions", json=unknown, headers=auth(OPERATOR_TOKEN))
    assert refused.status_code == 422 and "trueskill|openskill" in refused.text
    made = client.post("/api/v1/competitions", json=body, headers=auth(OPERATOR_TOKEN))
    assert made.status_code == 201, made.text
    assert (made.json()["format"], made.json()["status"], made.json()["bots"]) == (
        "duplicate-ladder",
        "open",
        len(SAMPLES),
    )
    assert made.json()["rating"] == "openskill"
    again = client.post("/api/v1/competitions", json=body, headers=auth(OPERATOR_TOKEN))
    assert again.status_code == 409, again.text
    bad = {**body, "name": "bad", "rules": {"preset": "classic", "options": {"nope": 1}}}
    assert (
        client.post("/api/v1/competitions", json=bad, headers=auth(OPERATOR_TOKEN)).status_code
        == 400
    )
    for action, status in (("pause", "paused"), ("resume", "open"), ("close", "closed")):
        answer = client.post(f"/api/v1/competitions/cup/{action}", headers=auth(OPERATOR_TOKEN))
        assert answer.status_code == 200 and answer.json()["status"] == status, answer.text
    closed = client.post("/api/v1/competitions/cup/pause", headers=auth(OPERATOR_TOKEN))
    assert closed.status_code == 409 and "open a new season" in closed.text
    season = client.post("/api/v1/competitions/cup/new-season", headers=auth(OPERATOR_TOKEN))
    assert (season.json()["season"], season.json()["status"]) == (2, "open"), season.text
    assert season.json()["format"] == "duplicate-ladder", "a new season keeps the format"
    assert season.json()["rating"] == "openskill", "and its rating system"
    log = client.get("/api/v1/admin/audit", headers=auth(OPERATOR_TOKEN)).json()
    assert [(row["actor"], row["action"], row["target"]) for row in log] == [
        ("operator", action, "competition cup")
        for action in ("new season", "close", "resume", "pause")
    ], "every change in the audit log, the refused pause not"
    ladder_name = season.json()["ladder"]
    stop = client.post(f"/api/v1/tournaments/{ladder_name}/stop", headers=auth(OPERATOR_TOKEN))
    assert stop.status_code == 200, stop.text

    without = TestClient(create_app(settings))  # started without ARENA_OPERATOR_TOKEN
    off = without.post("/api/v1/competitions", json=body, headers=auth(OPERATOR_TOKEN))
    assert off.status_code == 403 and "ARENA_OPERATOR_TOKEN" in off.text


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_competitions_page_shows_its_standings_pace_seasons_and_how_to_enter(
    app_and_token,
) -> None:
    from tests.support.api import OPERATOR_TOKEN, auth

    client, _, arena = app_and_token
    add_samples(arena.db)
    arena.db.transaction(
        lambda s: competitions.create(
            s, "main", RULES, 4, tables=2, bot_names=SAMPLES, default=True
        )
    )
    play_open_tables(arena, ladder_id(arena), rounds=2)
    page = client.get("/competitions/main")
    assert page.status_code == 200
    text = page.text
    assert "arena bot submit MYBOT --path bot.py --token TOKEN" in text
    assert "--competition" not in text.split("How to enter")[1].split("Standings")[0], (
        "the default competition needs no --competition"
    )
    assert "playing at once for the provisional ratings of" in text
    for bot in SAMPLES:
        assert f'href="/bots/{bot}"' in text
    assert text.count('class="hint provisional"') == len(SAMPLES), "4 games: all provisional"
    assert "main-season-1" in text and 'id="recent-matches"' in text
    assert "Rated by TrueSkill, ordered by mu − 3σ." in text
    home = client.get("/").text
    assert home.index('id="competitions"') < home.index('id="tournaments"'), "competitions lead"
    assert 'data-tournament="main-season-1"' not in home, "a competition is not a tournament"
    paced = client.post(
        "/api/v1/competitions/main/pace", json={"pace": None}, headers=auth(OPERATOR_TOKEN)
    )
    assert paced.status_code == 200 and paced.json()["pace"]["mode"] == "unpaced"
    assert "unpaced: 2 tables kept in play" in client.get("/competitions/main").text
    assert client.get("/competitions/nothing").status_code == 404
