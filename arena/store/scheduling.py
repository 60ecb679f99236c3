"""Tournaments that schedule as they play: a ladder keeps its tables in play, an A/B test
its pairs, a Swiss or knockout tournament its rounds. Each format says which engine seats
its matches (``Format.plays``); the worker calls ``refill`` after recording, the
reconciler for every one running (a worker may have died in between)."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import select

from arena.base.states import TournamentStatus
from arena.store import abtests, ladder, rounds
from arena.store.db import Database
from arena.store.models import Tournament
from arena.tournament import formats as registry
from arena.tournament.formats.base import SELF_SCHEDULING, Plays

Refill = Callable[[Database, int], list[tuple[int, str]]]
#: the engines that seat a format's next matches as it plays
REFILLS: dict[Plays, Refill] = {
    Plays.TABLES_IN_PLAY: ladder.refill,
    Plays.IN_PAIRS: abtests.refill,
    Plays.IN_ROUNDS: rounds.refill,
}
assert set(REFILLS) == set(SELF_SCHEDULING), "a self-scheduling engine without its refill"


def refill(db: Database, tournament_id: int, format: str) -> list[tuple[int, str]]:
    """Queue the tournament's next matches; (match, job) to enqueue."""
    found = REFILLS.get(registry.named(format).plays)
    return found(db, tournament_id) if found is not None else []


def refill_running(db: Database, formats: tuple[str, ...] | None = None) -> list[tuple[int, str]]:
    """Top up every running tournament that seats as it plays (of those, the ``formats``
    given)."""
    formats = registry.self_scheduling() if formats is None else formats
    with db.read() as session:
        running = session.execute(
            select(Tournament.id, Tournament.format).where(
                Tournament.format.in_(formats),
                Tournament.status == TournamentStatus.RUNNING,
            )
        ).all()
    return [job for row in running for job in refill(db, row.id, row.format)]
