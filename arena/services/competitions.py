"""Competitions as the operator runs them, from the CLI or the API alike: open one,
enter a bot, pause, resume, close, a new season, its pace. Each change answers with the
competition's summary as it now reads (arena.store.competitions keeps the rules)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from arena.base.states import CompetitionStatus
from arena.engine import Ruleset
from arena.referee import RefereeSettings
from arena.store import competitions as store
from arena.store.db import Database
from arena.store.models import Competition
from arena.tournament import pacing, ratings

#: a competition's default format: a ladder (or a duplicate ladder, each table played once
#: per seat rotation on the same deal)
LADDER = store.LADDER


@dataclass(frozen=True)
class CompetitionRequest:
    name: str
    rules: Ruleset
    table_size: int = 4
    tables: int = 2
    bots: list[str] = field(default_factory=list)
    deadline: float = 1.0
    time_bank: float = 5.0
    default: bool = False
    opens_at: datetime | None = None
    closes_at: datetime | None = None
    format: str = LADDER
    pace: float | None = pacing.DEFAULT_PACE
    #: the rating of record's name (arena.tournament.ratings), every season's
    rating: str = ratings.DEFAULT.name


def create(db: Database, request: CompetitionRequest) -> dict[str, Any]:
    """Open the competition: it plays as soon as a table's worth of bots entered."""
    return _changed(
        db,
        request.name,
        lambda session: store.create(
            session,
            request.name,
            request.rules,
            request.table_size,
            request.tables,
            request.bots,
            RefereeSettings(deadline=request.deadline, time_bank=request.time_bank),
            default=request.default,
            opens_at=request.opens_at,
            closes_at=request.closes_at,
            format=request.format,
            pace=request.pace,
            rating=request.rating,
        ),
    )


def enter(db: Database, name: str, bot: str) -> dict[str, Any]:
    """Enter a bot: its live version plays now, each later one once it qualifies."""

    def work(session: Session) -> Competition:
        competition = store.get(session, name)
        store.enter(session, competition, bot)
        return competition

    return _changed(db, name, work)


def set_status(db: Database, name: str, status: CompetitionStatus) -> dict[str, Any]:
    return _changed(db, name, lambda session: store.set_status(session, name, status))


def new_season(db: Database, name: str) -> dict[str, Any]:
    """Close the season in play and open the next: the same bots, fresh ratings."""
    return _changed(db, name, lambda session: store.new_season(session, name))


def set_pace(db: Database, name: str, pace: float | None) -> dict[str, Any]:
    """Tables a minute once every rating is settled (None: unpaced)."""
    return _changed(db, name, lambda session: store.set_pace(session, name, pace))


def _changed(db: Database, name: str, work: Callable[[Session], Competition]) -> dict[str, Any]:
    """Do ``work`` in a transaction; the competition's summary as it now reads."""
    db.transaction(work)
    with db.read() as session:
        return store.summary(session, store.get(session, name))


def listing(db: Database) -> list[dict[str, Any]]:
    """Every competition: its season, status, bots and tables."""
    with db.read() as session:
        return store.listing(session)


def summary(db: Database, name: str) -> dict[str, Any]:
    """The competition ``name``'s standings and state."""
    with db.read() as session:
        return store.summary(session, store.get(session, name))
