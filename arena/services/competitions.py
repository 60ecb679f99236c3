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
from arena.services.operators import PLATFORM_OPERATOR
from arena.services.retention import Retention
from arena.store import accounts as accounts_store
from arena.store import competitions as store
from arena.store.db import Database
from arena.store.models import Competition, now
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
    #: how long its matches' logs are kept (arena.services.retention)
    retention: Retention = Retention()


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
            log_days=request.retention.days,
            log_top=request.retention.top,
        ),
    )


def enter(db: Database, name: str, bot: str) -> dict[str, Any]:
    """Enter a bot: its live version plays now, each later one once it qualifies."""

    def work(session: Session) -> Competition:
        competition = store.get(session, name)
        store.enter(session, competition, bot)
        return competition

    return _changed(db, name, work)


#: what the audit log says an operator did to a competition, by its new status
_STATUS_ACTIONS = {
    CompetitionStatus.PAUSED: "pause",
    CompetitionStatus.OPEN: "resume",
    CompetitionStatus.CLOSED: "close",
}


def set_status(
    db: Database, name: str, status: CompetitionStatus, actor: str = PLATFORM_OPERATOR
) -> dict[str, Any]:
    """Pause, resume or close the competition (``actor``: the operator, for the log)."""
    action = _STATUS_ACTIONS[status]
    return _changed(db, name, lambda s: store.set_status(s, name, status), actor, action)


def new_season(db: Database, name: str, actor: str = PLATFORM_OPERATOR) -> dict[str, Any]:
    """Close the season in play and open the next: the same bots, fresh ratings."""
    return _changed(db, name, lambda s: store.new_season(s, name), actor, "new season")


def set_pace(
    db: Database, name: str, pace: float | None, actor: str = PLATFORM_OPERATOR
) -> dict[str, Any]:
    """Tables a minute once every rating is settled (None: unpaced)."""
    action = f"pace {pace if pace is not None else 'none'}"
    return _changed(db, name, lambda s: store.set_pace(s, name, pace), actor, action)


def set_retention(
    db: Database, name: str, retention: Retention, actor: str = PLATFORM_OPERATOR
) -> dict[str, Any]:
    """Keep its logs ``retention.days`` after their match (None: for ever), and every
    log of its ``retention.top`` best entries'; older ones go at the next pass."""
    days = "for ever" if retention.days is None else f"{retention.days:g} days"
    action = f"logs kept {days}, top {retention.top}"
    return _changed(
        db,
        name,
        lambda s: store.set_log_retention(s, name, retention.days, retention.top),
        actor,
        action,
    )


def _changed(
    db: Database,
    name: str,
    work: Callable[[Session], Competition],
    actor: str | None = None,
    action: str = "",
) -> dict[str, Any]:
    """Do ``work`` in a transaction (an operator's ``action``: in the audit log, in the
    same transaction); the competition's summary as it now reads."""

    def done(session: Session) -> Competition:
        changed = work(session)
        if actor is not None:
            accounts_store.record(session, actor, action, f"competition {name}", "", now())
        return changed

    db.transaction(done)
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
