"""Tournaments that schedule as they play: a ladder keeps its tables in play, an A/B test
its pairs, a Swiss or knockout tournament its rounds. The worker calls ``refill`` after
recording, the reconciler for every one running (a worker may have died in between)."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import select

from arena.store import abtests, ladder, rounds
from arena.store.db import Database
from arena.store.models import (
    IN_ROUNDS,
    SELF_SCHEDULING,
    Tournament,
    TournamentFormat,
    TournamentStatus,
)

Refill = Callable[[Database, int], list[tuple[int, str]]]
#: how each format that schedules as it plays seats its next matches
REFILLS: dict[str, Refill] = {
    TournamentFormat.LADDER: ladder.refill,
    TournamentFormat.ABTEST: abtests.refill,
    **dict.fromkeys(IN_ROUNDS, rounds.refill),
}
assert set(REFILLS) == set(SELF_SCHEDULING), "a self-scheduling format without its refill"


def refill(db: Database, tournament_id: int, format: str) -> list[tuple[int, str]]:
    """Queue the tournament's next matches; (match, job) to enqueue."""
    found = REFILLS.get(format)
    return found(db, tournament_id) if found is not None else []


def refill_running(
    db: Database, formats: tuple[TournamentFormat, ...] = SELF_SCHEDULING
) -> list[tuple[int, str]]:
    """Top up every running ladder and A/B test (of those, the ``formats`` given)."""
    with db.read() as session:
        running = session.execute(
            select(Tournament.id, Tournament.format).where(
                Tournament.format.in_(formats),
                Tournament.status == TournamentStatus.RUNNING,
            )
        ).all()
    return [job for row in running for job in refill(db, row.id, row.format)]
