"""Rating histories thinned as they age (arena.store.history): each version's newest
updates stay whole, one in fifty of the older ones stays. The workers' reconciler thins a
few versions at a time in the background; ``arena logs tier`` thins them all."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from arena.store import history
from arena.store.db import Database

#: versions looked up per database round trip
BATCH = 100


def thin_histories(
    db: Database,
    keep: int = history.KEEP,
    stride: int = history.STRIDE,
    most: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """Thin every version's history that has more than ``keep + stride`` young updates
    (at most ``most`` versions); the updates removed. ``progress(versions, removed)``
    after each batch."""
    versions = removed = 0
    seen: set[tuple[int, int]] = set()  # a version with no entry stays due: once is enough
    while most is None or versions < most:
        limit = BATCH if most is None else min(BATCH, most - versions)
        with db.read() as session:
            found = [due for due in history.due(session, keep, stride, limit) if due not in seen]
        if not found:
            break
        for tournament_id, version_id in found:
            thinned = partial(
                history.thin,
                tournament_id=tournament_id,
                version_id=version_id,
                keep=keep,
                stride=stride,
            )
            removed += db.transaction(thinned)
        seen.update(found)
        versions += len(found)
        if progress is not None:
            progress(versions, removed)
    return removed
