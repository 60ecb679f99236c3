"""A rating history thinned as it ages: the charts still say each kept point's update
number, mu and sigma as before, the young updates count on from the thinned ones as
more matches are recorded, nothing is thinned twice, and a tournament rated again (a
voided match) has its history whole again."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import func, select

from arena.services.history import thin_histories
from arena.services.views import charts
from arena.services.views import ratings as rating_queries
from arena.store import matches, moderation, tournaments
from arena.store.db import Database
from arena.store.models import Entry, RatingChange, TournamentMatch, now
from tests.support.store import make_tournament, play

#: the store's contract: on SQLite and PostgreSQL alike
pytestmark = pytest.mark.both_databases

KEEP, STRIDE = 10, 7


def _record(db: Database, ids: list[int]) -> None:
    for match_id in ids:
        plan = matches.claim(db, match_id, "w")
        assert plan is not None and matches.record(db, plan, play(plan), 1.0)


def _charts(db: Database, points: int = 1_000) -> dict[str, list[dict[str, Any]]]:
    """Every version's chart in tournament t, ``points`` at most each."""
    saved, charts.MAX_POINTS = charts.MAX_POINTS, points
    try:
        with db.read() as s:
            found = tournaments.get(s, "t")
            versions = [row.version_id for row in tournaments.leaderboard(s, found)]
            return rating_queries.rating_history(s, found.id, versions)
    finally:
        charts.MAX_POINTS = saved


def _only(whole: dict[str, list[dict[str, Any]]], numbers: set[int]) -> dict[str, list[dict]]:
    return {bot: [p for p in points if p["n"] in numbers] for bot, points in whole.items()}


def _ids(db: Database) -> list[int]:
    with db.read() as s:
        return list(s.scalars(select(TournamentMatch.id).order_by(TournamentMatch.index)))


def test_a_thinned_history_draws_the_same_points_and_counts_on(database_url: str) -> None:
    db = Database(database_url)
    make_tournament(db, games=50)  # four bots at one table: each plays every match
    ids = _ids(db)
    _record(db, ids[:40])
    whole = _charts(db)
    with db.read() as s:
        entries = [(e.mu, e.sigma, e.games) for e in s.scalars(select(Entry).order_by(Entry.id))]
    assert thin_histories(db, keep=KEEP, stride=STRIDE, most=1) == 30 - 6, "one version"
    assert thin_histories(db, keep=KEEP, stride=STRIDE) == 3 * (30 - 6), "then the others"
    first = {1, 7, 14, 21, 28, 30}  # the first, each 7th, the last thinned
    assert _charts(db) == _only(whole, first | set(range(31, 41)))
    assert thin_histories(db, keep=KEEP, stride=STRIDE) == 0, "nothing is thinned twice"
    with db.read() as s:
        after = [(e.mu, e.sigma, e.games) for e in s.scalars(select(Entry).order_by(Entry.id))]
    assert after == entries, "ratings are not the history: they stay"

    _record(db, ids[40:])  # the young updates count on from the last numbered one
    grown = _charts(db)
    assert all(
        [p["n"] for p in points] == sorted(first) + list(range(31, 51)) for points in grown.values()
    )
    assert thin_histories(db, keep=KEEP, stride=STRIDE) == 4 * (10 - 2)
    kept = first | {35, 40} | set(range(41, 51))
    assert _charts(db) == _only(grown, kept)
    assert all(  # a short chart picks the first kept update at or after each mark
        [p["n"] for p in points] == [1, 14, 21, 35, 41, 50]
        for points in _charts(db, points=5).values()
    )


def test_a_tournament_rated_again_has_its_history_whole_again(database_url: str) -> None:
    db = Database(database_url)
    make_tournament(db, games=30)
    ids = _ids(db)
    _record(db, ids)
    assert thin_histories(db, keep=KEEP, stride=STRIDE) > 0
    db.transaction(lambda s: moderation.void(s, ids[3], "a test", now()))
    with db.read() as s:
        per_version = s.execute(
            select(RatingChange.bot_version_id, func.count(), func.count(RatingChange.number))
            .group_by(RatingChange.bot_version_id)
        ).all()  # fmt: skip
        numbered = set(s.scalars(select(Entry.history_numbered)))
    assert {(count, thinned) for _, count, thinned in per_version} == {(29, 0)}
    assert numbered == {0}
    assert all([p["n"] for p in points] == list(range(1, 30)) for points in _charts(db).values())
