"""Logs in tiers: a match's log stays in the database while it is young, then moves to
the cold store (arena.store.cold) and is read back from there when a page or the API
asks for it (arena.store.logs.blob).

Moving is resumable and exactly once. Each log is written to one key that only its
match uses, read back to check its size, and only then taken out of the database by a
compare-and-set: the match is marked cold if its log was still in the database, and
the log's row goes (a cold log costs the database nothing but that mark). A mover
killed after the write leaves the log in the database and an object the next move
writes again (the same key: never a second copy); killed after the commit, nothing is
left to do; two movers at once write the same bytes to the same key, and one of them
marks the match. A log its competition's
retention dropped while it moved is deleted again by the mover that wrote it
(arena.services.retention).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from arena.base.errors import Invalid
from arena.services.accounts import WALL_CLOCK, Clock
from arena.store import logs
from arena.store.cold import ColdStore
from arena.store.db import Database

#: logs moved per database round trip
BATCH = 200


@dataclass(frozen=True)
class Tiered:
    """What a move did: logs moved, their bytes, and the logs still young enough."""

    moved: int
    bytes: int
    before: str


class ColdStoreMismatch(RuntimeError):
    """The cold store did not keep what was written: the log stays in the database."""


def tier(
    db: Database,
    hot_days: float,
    clock: Clock = WALL_CLOCK,
    batch: int = BATCH,
    most: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Tiered:
    """Move the logs of matches finished over ``hot_days`` ago to the cold store, the
    oldest first (at most ``most``); ``progress(moved, bytes)`` after each batch."""
    cold = db.cold
    if cold is None:
        raise Invalid("this platform has no cold store to move logs to")
    before = clock() - timedelta(days=hot_days)
    moved = size = 0
    while most is None or moved < most:
        limit = batch if most is None else min(batch, most - moved)
        with db.read() as session:
            found = logs.hot_before(session, before, limit)
        if not found:
            break
        for match_id, data in found:
            if _move(db, cold, match_id, data):
                moved, size = moved + 1, size + len(data)
        if progress is not None:
            progress(moved, size)
    return Tiered(moved, size, before.isoformat())


def _move(db: Database, cold: ColdStore, match_id: int, data: bytes) -> bool:
    """One log: written, checked, then out of the database (False: another mover, or
    retention dropped it meanwhile)."""
    key = logs.cold_key(match_id)
    cold.put(key, data)
    kept = cold.size(key)
    if kept == len(data) and db.transaction(lambda session: logs.mark_cold(session, match_id)):
        return True
    with db.read() as session:
        dropped = logs.is_dropped(session, match_id)
    if dropped:  # retention took the row meanwhile: the object just written goes too
        cold.delete(key)
        return False
    if kept != len(data):
        raise ColdStoreMismatch(f"the cold store kept {kept} bytes of {len(data)}")
    return False
