"""A competition's log retention: a match's log is dropped once it is older than the
competition's ``log_days``, unless one of its season's ``log_top`` best entries sat at
its table (their matches are the ones people study). Results, seats, ratings and every
running total stay for ever: only the log goes, from the database or the cold store.

Dropping is resumable and exactly once. A log's match is marked dropped first, and its
log keeps a row without data for the cold object that may hold it; then that object is
deleted, then the row goes. A pass killed between leaves such rows, and the next pass
deletes their objects first; a reader sees a dropped log from the moment its match is
marked (arena.store.logs.blob: 410 Gone), never a half-deleted one.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial

from sqlalchemy import select, update
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
    """A season whose old logs may go: its ladder, where its last sweep stopped, the
    days its logs are kept and the versions whose matches keep theirs."""

    tournament_id: int
    swept_to: int
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
        if most is not None and dropped >= most:
            break

        def told(done: int, so_far: int = dropped) -> None:
            if progress is not None:
                progress(so_far + done)

        dropped += _sweep(db, season, clock, batch, None if most is None else most - dropped, told)
    return dropped


def _sweep(
    db: Database,
    season: Season,
    clock: Clock,
    batch: int,
    most: int | None,
    progress: Callable[[int], None],
) -> int:
    """Sweep a season's logs in match order from where its last sweep stopped: each old
    one is dropped unless a kept entry sat at its table; the sweep stops at the first
    young one (the next pass starts there: a season's old logs are walked once)."""
    before = clock() - timedelta(days=season.days)
    after, dropped = season.swept_to, 0
    while most is None or dropped < most:
        with db.read() as session:
            found = logs.next_to_sweep(
                session, season.tournament_id, after, set(season.kept), batch
            )
        old = list(itertools.takewhile(lambda row: _aged(row, before), found))
        if most is not None:
            old = _within(old, most - dropped)
        if not old:
            break
        after = old[-1].match_id
        dropped += _drop(db, season.tournament_id, after, [r.match_id for r in old if not r.kept])
        progress(dropped)
        if len(old) < len(found) or len(found) < batch:
            break  # a young log, or the last one: the sweep goes on next pass
    return dropped


def _aged(row: logs.Swept, before: datetime) -> bool:
    return row.finished_at is not None and row.finished_at < before


def _within(rows: list[logs.Swept], budget: int) -> list[logs.Swept]:
    """The rows up to the ``budget``-th one to drop (a bounded pass stops there)."""
    taken, dropping = [], 0
    for row in rows:
        if not row.kept:
            if dropping == budget:
                break
            dropping += 1
        taken.append(row)
    return taken


def _seasons(session: Session) -> list[Season]:
    """Every season of every competition with a retention, and its best entries now."""
    found = []
    for competition in session.scalars(
        select(Competition).where(Competition.log_days.is_not(None)).order_by(Competition.id)
    ):
        assert competition.log_days is not None
        names = competitions.season_names(competition)
        for ladder in session.scalars(select(Tournament).where(Tournament.name.in_(names))):
            board = tournaments.leaderboard(session, ladder, top=competition.log_top)
            kept = frozenset(row.version_id for row in board)
            found.append(Season(ladder.id, ladder.logs_swept_to, competition.log_days, kept))
    return found


def _drop(db: Database, tournament_id: int, swept_to: int, match_ids: list[int]) -> int:
    """Mark each log dropped and the season swept this far (one transaction), then
    delete what the cold store held of them."""

    def mark(session: Session) -> list[int]:
        marked = [m for m in match_ids if logs.mark_dropped(session, m)]
        session.execute(
            update(Tournament).where(Tournament.id == tournament_id).values(logs_swept_to=swept_to)
        )
        return marked

    marked = db.transaction(mark)
    _delete_objects(db, [(m, logs.cold_key(m)) for m in marked])
    return len(marked)


def _delete_left_objects(db: Database, batch: int) -> None:
    """Delete the cold objects of dropped logs whose rows still name one (a pass killed
    between its marks and its deletes left them)."""
    while db.cold is not None:
        with db.read() as session:
            left = logs.objects_to_delete(session, batch)
        if not left:
            return
        _delete_objects(db, left)


def _delete_objects(db: Database, objects: list[tuple[int, str]]) -> None:
    """Delete the dropped logs' objects, then forget them, in one transaction (a pass
    killed before it deletes them again; a database without a cold store keeps the
    names for a process that has one)."""
    cold = db.cold
    if cold is None or not objects:
        return
    for _, key in objects:
        cold.delete(key)
    db.transaction(partial(logs.forget_objects, match_ids=[match_id for match_id, _ in objects]))
