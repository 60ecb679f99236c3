"""How results move ratings: one update of the tournament's rating system per match, in
completion order; in a duplicate tournament one per deal group, applied when its last
rotation is over, from the places each bot summed over the rotations (a deal's luck
cancels out)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, Protocol

from sqlalchemy import Connection, bindparam, func, select

from arena.base.states import OPEN_STATUSES, MatchStatus
from arena.store.models import (
    BotVersion,
    Entry,
    MatchSeat,
    RatingChange,
    Tournament,
    TournamentMatch,
    table_of,
)
from arena.tournament import ratings

logger = logging.getLogger(__name__)


class Ranked(Protocol):
    """A played match as rating sees it: who sat where, and how they finished."""

    versions: list[int]
    ranking: list[tuple[int, ...]]


_matches, _seats, _tournaments = (
    table_of(TournamentMatch),
    table_of(MatchSeat),
    table_of(Tournament),
)
_entries_table, _versions = table_of(Entry), table_of(BotVersion)

#: times a batch is rated again from a newer snapshot before it is written (a TrueSkill
#: update takes about a millisecond per match: better outside the write lock than under it)
RATE_AGAIN = 3


COMPLETED = select(_tournaments.c.completed).where(_tournaments.c.id == bindparam("tournament"))


ENTRIES = select(
    _entries_table.c.bot_version_id, _entries_table.c.mu, _entries_table.c.sigma
).where(
    _entries_table.c.tournament_id == bindparam("tournament"),
    _entries_table.c.bot_version_id.in_(bindparam("versions", expanding=True)),
)


SYSTEM = select(_tournaments.c.rating_system).where(_tournaments.c.id == bindparam("tournament"))


SNAPSHOT = ENTRIES.add_columns(
    COMPLETED.scalar_subquery().label("completed"),
    SYSTEM.scalar_subquery().label("rating_system"),
)


ENTRY = (
    _entries_table.c.tournament_id == bindparam("tournament"),
    _entries_table.c.bot_version_id == bindparam("version"),
)


ENTRY_RATING = (
    _entries_table.update()
    .where(*ENTRY)
    .values(mu=bindparam("new_mu"), sigma=bindparam("new_sigma"))
)


_IN_GROUP = (
    _matches.c.tournament_id == bindparam("tournament"),
    _matches.c.deal_group == bindparam("group"),
)


_GROUP_OPEN = select(_matches.c.id).where(*_IN_GROUP, _matches.c.status.in_(OPEN_STATUSES)).limit(1)


_GROUP_PLACES = (
    select(_seats.c.bot_version_id, func.sum(_seats.c.place))
    .join(_matches, _matches.c.id == _seats.c.match_id)
    .where(*_IN_GROUP, _matches.c.status == MatchStatus.DONE, _matches.c.voided_at.is_(None))
    .group_by(_seats.c.bot_version_id)
    .order_by(_seats.c.bot_version_id)
)


RATING_CHANGE = table_of(RatingChange).insert()


Ratings = dict[int, ratings.Rating]  # by bot version


def system_of(connection: Connection, tournament_id: int) -> ratings.RatingSystem:
    """The rating of record of tournament ``tournament_id``."""
    name = connection.execute(SYSTEM, {"tournament": tournament_id}).scalar_one()
    return ratings.named(name)


def rate_in_turn(
    system: ratings.RatingSystem, current: Ratings, results: Sequence[Ranked]
) -> list[list[ratings.Rating]]:
    """Each result's new ratings (by seat) under ``system``, applied one result after
    another."""
    current, steps = dict(current), []
    for result in results:
        rated = system.rate([current[v] for v in result.versions], result.ranking)
        current.update(zip(result.versions, rated, strict=True))
        steps.append(rated)
    return steps


def ratings_of(rows: Any) -> Ratings:
    return {row.bot_version_id: ratings.Rating(row.mu, row.sigma) for row in rows}


def rate_group_if_closed(
    connection: Connection,
    tournament_id: int,
    group: int | None,
    match_id: int,
    completion: int | None = None,
) -> None:
    """Duplicate deals: once no match of ``group`` is open, rate the group once, ranking its
    bots by their places summed over the rotations played (a deal's luck cancels out).

    Rating every rotation as its own match would count one deal's outcomes as independent
    evidence; ``arena bench ranking`` measures that as slower than random seating."""
    if group is None or connection.execute(_GROUP_OPEN, _group(tournament_id, group)).first():
        return
    summed = connection.execute(_GROUP_PLACES, _group(tournament_id, group)).all()
    if not summed:  # every rotation failed or went stale
        return
    if completion is None:
        completion = connection.execute(COMPLETED, {"tournament": tournament_id}).scalar()
    versions = [version for version, _ in summed]
    entries = {"tournament": tournament_id, "versions": versions}
    by_version = ratings_of(connection.execute(ENTRIES, entries))
    current = [by_version[v] for v in versions]
    system = system_of(connection, tournament_id)
    rated = system.rate(current, ratings.ranking_by_score([place for _, place in summed]))
    connection.execute(
        ENTRY_RATING,
        [
            {"tournament": tournament_id, "version": v, "new_mu": r.mu, "new_sigma": r.sigma}
            for v, r in zip(versions, rated, strict=True)
        ],
    )
    connection.execute(
        RATING_CHANGE,
        [
            {
                "tournament_id": tournament_id,
                "bot_version_id": v,
                "match_id": match_id,
                "completion": completion,
                "mu": r.mu,
                "sigma": r.sigma,
            }
            for v, r in zip(versions, rated, strict=True)
        ],
    )


def _group(tournament_id: int, group: int) -> dict[str, int]:
    return {"tournament": tournament_id, "group": group}
