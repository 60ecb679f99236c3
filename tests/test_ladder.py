"""Ladders keep playing until stopped, with no bot starved."""

from __future__ import annotations

import itertools
from collections import Counter
from datetime import timedelta

import pytest
from alembic import command
from sqlalchemy import func, select, update

from arena.base.states import BotKind, MatchStatus, TournamentStatus
from arena.engine import Ruleset
from arena.store import bots, ladder, matches, tournaments
from arena.store.db import Database
from arena.store.models import (
    BotVersion,
    Entry,
    MatchSeat,
    RegisteredBot,
    Tournament,
    TournamentMatch,
    now,
)
from arena.store.schema import alembic_config
from tests.support.store import play

#: the store's contract: on SQLite and PostgreSQL alike
pytestmark = pytest.mark.both_databases

NAMES = [f"bot{i}" for i in range(6)]
KINDS = ["random", "honest", "counter", "bluffer", "random", "counter"]


def open_matches(db: Database) -> list[int]:
    with db.read() as s:
        return list(
            s.scalars(
                select(TournamentMatch.id)
                .where(TournamentMatch.status.in_([MatchStatus.QUEUED, MatchStatus.RUNNING]))
                .order_by(TournamentMatch.id)
            )
        )


def test_a_ladder_keeps_its_tables_in_play_and_starves_no_bot(db: Database) -> None:
    db.transaction(
        lambda s: [bots.add_bot(s, n, BotKind.SAMPLE, k) for n, k in zip(NAMES, KINDS, strict=True)]
    )
    db.transaction(
        lambda s: tournaments.create(
            s, "ladder", Ruleset.parse("classic"), NAMES, 3, 2, seed="l", format="ladder"
        )
    )
    started = db.transaction(lambda s: tournaments.start(s, "ladder"))
    assert len(started) == 2 and len(open_matches(db)) == 2
    for _ in range(30):
        match_id = open_matches(db)[0]
        plan = matches.claim(db, match_id, "w")
        assert plan.format == "ladder"
        assert matches.record(db, plan, play(plan), 1.0)
        assert len(ladder.refill(db, plan.tournament_id)) == 1
        assert len(open_matches(db)) == 2, "the ladder keeps its tables in play"
    with db.read() as s:
        tournament = tournaments.get(s, "ladder")
        assert tournament.status is TournamentStatus.RUNNING
        games = Counter(
            s.scalars(
                select(MatchSeat.bot_version_id)
                .join(TournamentMatch)
                .where(TournamentMatch.status == MatchStatus.DONE)
            )
        )
        assert len(games) == 6 and max(games.values()) - min(games.values()) <= 2, games
        seats = Counter(s.execute(select(MatchSeat.bot_version_id, MatchSeat.seat)).all())
        for version in games:
            per_seat = [seats[(version, seat)] for seat in range(3)]
            assert max(per_seat) - min(per_seat) <= 3, per_seat
        kept = {e.bot_version_id: e.seat_counts for e in tournament.entries}
        assert kept == {
            version: [seats[(version, seat)] for seat in range(3)] for version in games
        }, "each entry counts its seats as the history does"
    _migrate_seat_counts_again(db)
    with db.read() as s:
        entries = tournaments.get(s, "ladder").entries
        assert {e.bot_version_id: e.seat_counts for e in entries} == kept, "the backfill agrees"
    dropped = db.transaction(lambda s: ladder.stop(s, tournaments.get(s, "ladder")))
    assert dropped == 2
    with db.read() as s:
        assert tournaments.get(s, "ladder").status is TournamentStatus.DONE
        assert (
            s.scalar(
                select(func.count())
                .select_from(TournamentMatch)
                .where(TournamentMatch.status == MatchStatus.STALE)
            )
            == 2
        )
    assert ladder.refill(db, plan.tournament_id) == [], "a stopped ladder schedules nothing"


def _migrate_seat_counts_again(db: Database) -> None:
    """Down to the schema before the seat counts, and up again: migration 0008 fills
    them from the seats of the ladder's matches."""
    config = alembic_config()
    with db.engine.connect() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0007")
        command.upgrade(config, "head")
        connection.commit()


FIELD = ["counter", "honest", "random", "bluffer"]


def _play_through(db: Database, name: str, count: int) -> tuple[list[dict], Counter]:
    """Play ``count`` matches of tournament ``name`` in order (a ladder refills after
    each); its leaderboard and how often each pair of bots met."""
    db.transaction(lambda s: tournaments.start(s, name))
    for _ in range(count):
        with db.read() as s:
            found = tournaments.get(s, name)
            queued = s.scalar(
                select(TournamentMatch.id)
                .where(
                    TournamentMatch.tournament_id == found.id,
                    TournamentMatch.status == MatchStatus.QUEUED,
                )
                .order_by(TournamentMatch.id)
                .limit(1)
            )
        plan = matches.claim(db, queued, "w")
        assert matches.record(db, plan, play(plan), 1.0)
        ladder.refill(db, plan.tournament_id)
    with db.read() as s:
        found = tournaments.get(s, name)
        met = Counter(
            tuple(sorted(seat.version.bot.name for seat in match.seats))
            for match in s.scalars(
                select(TournamentMatch).where(
                    TournamentMatch.tournament_id == found.id,
                    TournamentMatch.status == MatchStatus.DONE,
                )
            )
        )
        return tournaments.leaderboard(s, found), met


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)  # statistics, no locking
def test_a_two_seat_ladder_explores_and_ranks_a_planted_field_as_a_round_robin_does(
    db: Database,
) -> None:
    """A field of known strengths (counter and honest, then random, then bluffer) played
    at tables of two: the ladder meets every pair often (a nearest-rating choice locked
    it into counter-honest and random-bluffer, 95 and 96 of 200 games, and random's win
    share reached 89 %) and orders the bots as a round robin of as many games does."""
    games = 160
    db.transaction(lambda s: [bots.add_bot(s, n, BotKind.SAMPLE, n) for n in FIELD])
    rules = Ruleset.parse("classic")
    db.transaction(lambda s: tournaments.create(s, "rr", rules, FIELD, 2, games, seed="p"))
    db.transaction(
        lambda s: tournaments.create(s, "lad", rules, FIELD, 2, 2, seed="p", format="ladder")
    )
    robin, _ = _play_through(db, "rr", games)
    board, met = _play_through(db, "lad", games)
    assert len(met) == 6 and min(met.values()) >= games // 16, met
    robin_score = {row.bot: row.score for row in robin}
    ladder_rank = {row.bot: row.rank for row in board}
    for a, b in itertools.permutations(FIELD, 2):
        if robin_score[a] > robin_score[b] + 3:  # clearly apart in the round robin
            assert ladder_rank[a] < ladder_rank[b], (a, b, robin, board)


# -- pace --------------------------------------------------------------------------------


def _paced_competition(db: Database, pace: float | None = 6.0) -> int:
    from arena.store import competitions

    db.transaction(
        lambda s: [bots.add_bot(s, n, BotKind.SAMPLE, k) for n, k in zip(NAMES, KINDS, strict=True)]
    )
    db.transaction(
        lambda s: competitions.create(
            s, "main", Ruleset.parse("classic"), 4, tables=3, bot_names=NAMES, pace=pace
        )
    )
    with db.read() as s:
        return competitions.get(s, "main").tournament_id


def _settle(db: Database, tournament_id: int) -> None:
    """Every entry as a long ladder leaves it: many games, a small sigma."""
    db.transaction(
        lambda s: s.execute(
            update(Entry).where(Entry.tournament_id == tournament_id).values(games=400, sigma=0.7)
        )
    )


def _seated(jobs: list[tuple[int, str]], db: Database) -> list[set[str]]:
    """The bots of each table those jobs seated."""
    with db.read() as s:
        tables: dict[int, set[str]] = {}
        for match_id, name in s.execute(
            select(MatchSeat.match_id, RegisteredBot.name)
            .join(BotVersion, BotVersion.id == MatchSeat.bot_version_id)
            .join(RegisteredBot, RegisteredBot.id == BotVersion.bot_id)
            .where(MatchSeat.match_id.in_([m for m, _ in jobs]))
        ):
            tables.setdefault(match_id, set()).add(name)
        return list(tables.values())


def test_a_paced_ladder_trickles_once_settled_and_plays_at_once_for_a_new_version(
    db: Database,
) -> None:
    tournament_id = _paced_competition(db)
    assert len(ladder.refill(db, tournament_id)) == 3, "provisional ratings: every table"
    db.transaction(
        lambda s: s.execute(
            update(TournamentMatch).values(status=MatchStatus.DONE, finished_at=now())
        )
    )
    _settle(db, tournament_id)
    assert len(ladder.refill(db, tournament_id)) == 1, "settled: one table when its time came"
    assert ladder.refill(db, tournament_id) == [], "and none before the next one's time"
    with db.read() as s:
        tournament = s.get(Tournament, tournament_id)
        pace = ladder.pace_of(s, tournament)
        due = tournament.next_table_at
    assert pace["mode"] == "settled" and pace["provisional"] == []
    gap = (due.replace(tzinfo=None) - now().replace(tzinfo=None)).total_seconds()
    assert 0 < gap <= 10.0, "one table every 60 / 6 seconds"
    db.transaction(
        lambda s: s.execute(
            update(Tournament)
            .where(Tournament.id == tournament_id)
            .values(next_table_at=now() - timedelta(seconds=1))
        )
    )
    assert len(ladder.refill(db, tournament_id)) == 1, "its time came"

    def new_version(session) -> None:  # a new version of bot0 goes live in the competition
        from arena.store import releases

        version = bots.add_version(session, "bot0", BotKind.SAMPLE, "counter", retire_others=False)
        releases.go_live(session, version)

    db.transaction(new_version)
    jobs = ladder.refill(db, tournament_id)
    tables = _seated(jobs, db)
    assert len(tables) == 1 and all("bot0" in table for table in tables), (
        "the free table (two are in play) goes to the provisional version at once"
    )
    with db.read() as s:
        pace = ladder.pace_of(s, s.get(Tournament, tournament_id))
    assert pace["mode"] == "provisional"
    assert [(e["bot"], e["version"], e["games"]) for e in pace["provisional"]] == [("bot0", 2, 0)]


def test_an_unpaced_competition_keeps_every_table_in_play(db: Database) -> None:
    tournament_id = _paced_competition(db, pace=None)
    _settle(db, tournament_id)
    assert len(ladder.refill(db, tournament_id)) == 3
    with db.read() as s:
        assert ladder.pace_of(s, s.get(Tournament, tournament_id))["mode"] == "unpaced"
