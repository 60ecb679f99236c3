"""What a ladder placement costs as the ladder ages: the time to record a match's end
and place the next table (``ladder.refill``, under the tournament's lock), after a
history of 1,000 and of 50,000 matches (SQLite).

The history is written in bulk (done matches with their seats, and each entry's seat
counts as placements keep them); then ``placements`` times a match in play is marked
done and the ladder refilled, each timed. Medians in ms.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import insert, select, update

from arena.base.states import BotKind, MatchStatus
from arena.engine import Ruleset
from arena.store import bots as bot_store
from arena.store import ladder
from arena.store import tournaments as tournament_store
from arena.store.db import Database
from arena.store.models import Entry, MatchSeat, TournamentMatch, now
from arena.store.schema import upgrade
from arena.tournament import formats, seeds

BOTS = 8
TABLE = 4
IN_PLAY = 4


def run(
    histories: tuple[int, ...] = (1_000, 50_000),
    placements: int = 200,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    figures: dict[str, Any] = {"placements": placements, "bots": BOTS, "table": TABLE}
    for history in histories:
        with tempfile.TemporaryDirectory(prefix="arena-bench-ladder-") as tmp:
            db = Database(f"sqlite:///{tmp}/arena.db")
            try:
                upgrade(db)
                if progress:
                    progress(f"a ladder with {history:,} matches behind it")
                tournament_id = _ladder_with_history(db, history)
                times = _placements(db, tournament_id, placements)
            finally:
                db.dispose()
        figures[f"ms_per_placement_at_{history}"] = round(statistics.median(times), 3)
    return figures


def _ladder_with_history(db: Database, history: int) -> int:
    names = [f"bot-{i}" for i in range(BOTS)]

    def create(session) -> int:
        for name in names:
            bot_store.add_bot(session, name, BotKind.SAMPLE, "random")
        tournament = tournament_store.create(
            session,
            "ladder",
            Ruleset.parse("classic"),
            names,
            TABLE,
            IN_PLAY,
            format=formats.LADDER.name,
        )
        return tournament.id

    tournament_id = db.transaction(create)
    db.transaction(lambda session: _write_history(session, tournament_id, history))
    db.transaction(lambda session: tournament_store.start(session, "ladder"))
    return tournament_id


def _write_history(session, tournament_id: int, history: int) -> None:
    entries = list(session.scalars(select(Entry).where(Entry.tournament_id == tournament_id)))
    versions = [e.bot_version_id for e in entries]
    moment = now()
    first = (
        session.scalar(select(TournamentMatch.id).order_by(TournamentMatch.id.desc()).limit(1)) or 0
    ) + 1
    session.execute(
        insert(TournamentMatch),
        [
            {
                "id": first + i,
                "tournament_id": tournament_id,
                "index": i,
                "seed": seeds.match_seed("0" * 64, f"ladder/{i}"),
                "status": MatchStatus.DONE,
                "finished_at": moment,
            }
            for i in range(history)
        ],
    )
    counts = {version: [0] * TABLE for version in versions}
    seats = []
    for i in range(history):
        for seat in range(TABLE):
            version = versions[(i + seat) % len(versions)]
            counts[version][seat] += 1
            seats.append({"match_id": first + i, "seat": seat, "bot_version_id": version})
    session.execute(insert(MatchSeat), seats)
    for entry in entries:
        entry.seat_counts = counts[entry.bot_version_id]
        entry.games = sum(counts[entry.bot_version_id])


def _placements(db: Database, tournament_id: int, placements: int) -> list[float]:
    """Mark the oldest match in play done and refill the ladder, timed, ``placements`` times."""
    times = []
    for _ in range(placements):
        with db.read() as session:
            oldest = session.scalar(
                select(TournamentMatch.id)
                .where(
                    TournamentMatch.tournament_id == tournament_id,
                    TournamentMatch.status == MatchStatus.QUEUED,
                )
                .order_by(TournamentMatch.id)
                .limit(1)
            )
        began = time.perf_counter()
        db.transaction(
            lambda session, done=oldest: session.execute(  # type: ignore[misc]  # bound default
                update(TournamentMatch)
                .where(TournamentMatch.id == done)
                .values(status=MatchStatus.DONE)
            )
        )
        placed = ladder.refill(db, tournament_id)
        times.append((time.perf_counter() - began) * 1000)
        assert len(placed) == 1, placed
    return times
