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
    (at most ``most`` versions thinned); the updates removed. ``progress(versions,
    removed)`` after each batch of versions looked at."""
    looked = thinned = removed = 0
    after = (0, 0)  # each entry looked at once a pass, in order
    while most is None or thinned < most:
        with db.read() as session:
            found = history.due(session, keep, stride, after, BATCH)
        if not found:
            break
        for tournament_id, version_id in found:
            if most is not None and thinned >= most:
                break
            gone = db.transaction(
                partial(
                    history.thin,
                    tournament_id=tournament_id,
                    version_id=version_id,
                    keep=keep,
                    stride=stride,
                )
            )
            thinned, removed = thinned + (gone > 0), removed + gone
        after = found[-1]
        looked += len(found)
        if progress is not None:
            progress(looked, removed)
    return removed
