"""Competitions: a submitted bot is ranked with no other step, its newer version takes
its place, and the operator pauses, closes and reopens the competition."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select, update

from arena.engine import Ruleset
from arena.platform import Platform
from arena.platform.settings import Settings
from arena.platform.submission import submit
from arena.store import competitions, ladder, matches
from arena.store.errors import Invalid
from arena.store.models import (
    BotKind,
    Competition,
    CompetitionStatus,
    Entry,
    Match,
    MatchStatus,
    TournamentStatus,
    now,
)
from tests.support.store import add_samples, play

RULES = Ruleset.parse("classic")


def ladder_id(arena: Platform, name: str = "main") -> int:
    with arena.db.read() as session:
        return competitions.get(session, name).tournament_id


def play_open_tables(arena: Platform, tournament_id: int, rounds: int) -> None:
    """Record the tables in play, refilling as a worker does, ``rounds`` times."""
    for _ in range(rounds):
        with arena.db.read() as session:
            open_ids = session.scalars(
                select(Match.id).where(
                    Match.tournament_id == tournament_id,
                    Match.status.in_([MatchStatus.QUEUED, MatchStatus.RUNNING]),
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
    [(match_id, _)] = ladder.refill(arena.db, tournament)
    play_open_tables(arena, tournament, 6)
    with arena.db.read() as session:
        standing = competitions.summary(session, competitions.get(session, "main"))
    assert {row["bot"] for row in standing["leaderboard"]} == {"random", "counter", "newcomer"}
    assert all(row["games"] > 0 for row in standing["leaderboard"])

    second = submit(arena, "newcomer", BotKind.SAMPLE, "bluffer")
    assert second.accepted and second.version == 2
    play_open_tables(arena, tournament, 3)  # a table of version 1 may still be in play
    with arena.db.read() as session:
        board = competitions.summary(session, competitions.get(session, "main"))["leaderboard"]
        retired = session.scalars(select(Entry).where(Entry.retired.is_(True))).all()
        newest_table = session.scalar(
            select(Match).where(Match.tournament_id == tournament).order_by(Match.id.desc())
        )
        newest = {seat.bot_version_id for seat in newest_table.seats}
    assert [(r["bot"], r["version"]) for r in board if r["bot"] == "newcomer"] == [
        ("newcomer", 2)
    ], "the newer version takes the older one's place"
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
            select(Match).where(
                Match.tournament_id == tournament, Match.status == MatchStatus.QUEUED
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
    assert all(row["games"] == 0 for row in fresh["leaderboard"]) and len(fresh["leaderboard"]) == 3
    assert sum(row["games"] for row in final["leaderboard"]) > 0, "season 1 keeps its standings"


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
