"""Ladders keep playing until stopped, with no bot starved."""

from __future__ import annotations

from collections import Counter

from alembic import command
from sqlalchemy import func, select

from arena.engine import Ruleset
from arena.store import bots, ladder, matches, tournaments
from arena.store.db import Database
from arena.store.models import BotKind, Match, MatchStatus, Seat, TournamentStatus
from arena.store.schema import alembic_config
from tests.support.store import play

NAMES = [f"bot{i}" for i in range(6)]
KINDS = ["random", "honest", "counter", "bluffer", "random", "counter"]


def open_matches(db: Database) -> list[int]:
    with db.read() as s:
        return list(
            s.scalars(
                select(Match.id)
                .where(Match.status.in_([MatchStatus.QUEUED, MatchStatus.RUNNING]))
                .order_by(Match.id)
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
                select(Seat.bot_version_id).join(Match).where(Match.status == MatchStatus.DONE)
            )
        )
        assert len(games) == 6 and max(games.values()) - min(games.values()) <= 2, games
        seats = Counter(s.execute(select(Seat.bot_version_id, Seat.seat)).all())
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
                select(func.count()).select_from(Match).where(Match.status == MatchStatus.STALE)
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
