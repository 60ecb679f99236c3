"""Tournaments that schedule as they play: a ladder keeps its tables in play, an A/B test
its pairs, a Swiss or knockout tournament its rounds. The worker calls ``refill`` after
recording, the reconciler for every one running (a worker may have died in between)."""

from __future__ import annotations

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


def refill(db: Database, tournament_id: int, format: str) -> list[tuple[int, str]]:
    """Queue the tournament's next matches; (match, job) to enqueue."""
    if format == TournamentFormat.ABTEST:
        return abtests.refill(db, tournament_id)
    if format == TournamentFormat.LADDER:
        return ladder.refill(db, tournament_id)
    if format in IN_ROUNDS:
        return rounds.refill(db, tournament_id)
    return []


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
