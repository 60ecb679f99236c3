"""A version's rating history thinned as it ages: its newest :data:`KEEP` updates in a
tournament stay whole, and of the older ones one in :data:`STRIDE` stays (and its first
and the last thinned), each numbered with its update number, so a chart still says which
update a point is (arena.services.views.ratings). A season of ten million matches would
otherwise keep forty million rows for charts that draw 120 points a version.

Each version's thinning is one transaction under its entry's lock: the oldest unnumbered
updates but the newest :data:`KEEP` are numbered from the entry's ``history_numbered`` on,
the kept ones keep their number and the others go. Re-rating a tournament (a voided
match) writes its history whole again and starts the numbering afresh."""

from __future__ import annotations

from sqlalchemy import delete, select, tuple_, update
from sqlalchemy.orm import Session

from arena.store.models import Entry, RatingChange

#: a version's newest updates kept whole
KEEP = 1_000
#: of its older updates, one in this many stays
STRIDE = 50
#: rows deleted by one statement
CHUNK = 1_000


def due(
    session: Session, keep: int, stride: int, after: tuple[int, int], limit: int
) -> list[tuple[int, int]]:
    """(tournament, version) that may have over ``keep + stride`` unnumbered updates:
    those a thinning pass may have work in, read from the entries (a row a version, not
    a row an update). An entry's games are at least its updates (a duplicate table is
    one update of several games), so none with work is missed. In (tournament, version)
    order after ``after``."""
    key = tuple_(Entry.tournament_id, Entry.bot_version_id)
    rows = session.execute(
        select(Entry.tournament_id, Entry.bot_version_id)
        .where(Entry.games - Entry.history_numbered > keep + stride, key > tuple_(*after))
        .order_by(Entry.tournament_id, Entry.bot_version_id)
        .limit(limit)
    ).all()
    return [(tournament_id, version_id) for tournament_id, version_id in rows]


def thin(session: Session, tournament_id: int, version_id: int, keep: int, stride: int) -> int:
    """Thin the version's history but its newest ``keep`` updates; the updates removed."""
    entry = session.scalar(
        select(Entry)
        .where(Entry.tournament_id == tournament_id, Entry.bot_version_id == version_id)
        .with_for_update()
    )
    if entry is None:
        return 0
    young = session.execute(
        select(RatingChange.id)
        .where(
            RatingChange.tournament_id == tournament_id,
            RatingChange.bot_version_id == version_id,
            RatingChange.number.is_(None),
        )
        .order_by(RatingChange.completion)
    ).scalars()
    old = list(young)[:-keep] if keep else list(young)
    if not old:
        return 0
    base = entry.history_numbered
    numbers = {row: base + place for place, row in enumerate(old, 1)}
    kept = {row: n for row, n in numbers.items() if n == 1 or n % stride == 0}
    kept[old[-1]] = numbers[old[-1]]  # the last numbered: the young ones count on from it
    session.execute(update(RatingChange), [{"id": row, "number": n} for row, n in kept.items()])
    dropped = [row for row in old if row not in kept]
    for start in range(0, len(dropped), CHUNK):
        chunk = dropped[start : start + CHUNK]
        session.execute(delete(RatingChange).where(RatingChange.id.in_(chunk)))
    entry.history_numbered = base + len(old)
    return len(dropped)
