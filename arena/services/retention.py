"""A competition's log retention: a match's log is dropped once it is older than the
competition's ``log_days``, unless one of its season's ``log_top`` best entries sat at
its table (their matches are the ones people study). Results, seats, ratings and every
running total stay for ever: only the log goes, from the database or the cold store.

Dropping is resumable and exactly once. A log's row is marked dropped first (its data
leaves the database, and the row names the cold object that may hold it), then that
object is deleted, then the row forgets it. A pass killed between leaves rows that name
their object, and the next pass deletes those first; a reader sees a dropped log from the
moment its row is marked (arena.store.logs.blob: 410 Gone), never a half-deleted one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from functools import partial

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.base.errors import Invalid
from arena.services.accounts import WALL_CLOCK, Clock
from arena.store import competitions, logs, tournaments
from arena.store.db import Database
from arena.store.models import Competition, Tournament

#: logs dropped per database round trip
BATCH = 200


@dataclass(frozen=True)
class Retention:
    """How long a competition keeps its matches' logs (None: for ever), and how many of
    its best entries keep every log of theirs."""

    days: float | None = None
    top: int = 0

    def __post_init__(self) -> None:
        if self.days is not None and not self.days >= 1:
            raise Invalid.of("logs.retention_days", days=self.days)
        if self.top < 0:
            raise Invalid.of("logs.retention_top", top=self.top)


@dataclass(frozen=True)
class Season:
    """A season whose old logs may go: its ladder, the moment before which they may,
    and the versions whose matches keep theirs."""

    tournament_id: int
    days: float
    kept: frozenset[int]


def drop_old_logs(
    db: Database,
    clock: Clock = WALL_CLOCK,
    batch: int = BATCH,
    most: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Drop the logs every competition's retention lets go (at most ``most``), after
    deleting what an interrupted pass left in the cold store; how many were dropped.
    ``progress(dropped)`` after each batch."""
    _delete_left_objects(db, batch)
    with db.read() as session:
        seasons = _seasons(session)
    dropped = 0
    for season in seasons:
        before = clock() - timedelta(days=season.days)
        while most is None or dropped < most:
            limit = batch if most is None else min(batch, most - dropped)
            with db.read() as session:
                found = logs.droppable(
                    session, season.tournament_id, before, set(season.kept), limit
                )
            if not found:
                break
            dropped += _drop(db, found, clock)
            if progress is not None:
                progress(dropped)
    return dropped


def _seasons(session: Session) -> list[Season]:
    """Every season of every competition with a retention, and its best entries now."""
    found = []
    for competition in session.scalars(
        select(Competition).where(Competition.log_days.is_not(None)).order_by(Competition.id)
    ):
        assert competition.log_days is not None
        names = competitions.season_names(competition)
        for ladder in session.scalars(select(Tournament).where(Tournament.name.in_(names))):
            board = tournaments.leaderboard(session, ladder)[: competition.log_top]
            kept = frozenset(row.version_id for row in board)
            found.append(Season(ladder.id, competition.log_days, kept))
    return found


def _drop(db: Database, match_ids: list[int], clock: Clock) -> int:
    """Mark each log dropped (one transaction), then delete what the cold store held."""

    def mark(session: Session) -> list[int]:
        moment = clock()
        return [m for m in match_ids if logs.mark_dropped(session, m, moment)]

    marked = db.transaction(mark)
    _delete_left_objects(db, len(match_ids))
    return len(marked)


def _delete_left_objects(db: Database, batch: int) -> None:
    """Delete the cold objects of dropped logs whose rows still name one (a database
    without a cold store keeps the names for a process that has one)."""
    cold = db.cold
    if cold is None:
        return
    while True:
        with db.read() as session:
            left = logs.objects_to_delete(session, batch)
        if not left:
            return
        for match_id, key in left:
            cold.delete(key)
            db.transaction(partial(logs.forget_object, match_id=match_id))
