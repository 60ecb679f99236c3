"""The demo ``arena up`` shows: the sample bots registered, the default competition
(main: the samples entered, every submitted bot joins it) and a demo tournament between
the samples with a ladder beside it. Made once per database; a later ``arena up`` shows
the same demo (finishing it if it was cut)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.base.errors import Refused
from arena.base.states import TournamentStatus
from arena.engine import Ruleset
from arena.platform.core import Platform
from arena.store import bots as bot_store
from arena.store import competitions
from arena.store import tournaments as tournament_store
from arena.store.db import Database
from arena.store.models import Tournament
from arena.tournament import formats
from sample_bots import SAMPLES

DEMO = "demo"
#: the default competition ``arena up`` opens: every submitted bot plays there by itself
MAIN = "main"


def play_the_default_competition(arena: Platform) -> None:
    """Seat the default competition's tables now (the workers' reconciler keeps them
    filled, and seats bots that enter later, within seconds)."""
    from arena.platform import queue as work_queue
    from arena.store import ladder

    with arena.db.read() as session:
        found = competitions.default(session)
        tournament_id = found.tournament_id if found is not None else None
    if tournament_id is not None:
        work_queue.enqueue_all(arena.queue, ladder.refill(arena.db, tournament_id))


def seed(arena: Platform, games: int) -> str:
    """Register the sample bots once, the default competition once (main: the samples
    entered, every submitted bot joins), and the demo once: a round robin with duplicate
    deals and a ladder beside it (demo-ladder) that plays while the demo does. A later
    ``arena up`` on the same data shows the same demo (finishing it if it was cut)."""

    def work(session: Session) -> str:
        for sample in SAMPLES:
            try:
                bot_store.active_version(session, sample)
            except Refused:
                bot_store.register_sample(session, sample)
        if competitions.default(session) is None:
            competitions.create(
                session,
                MAIN,
                Ruleset.parse("classic"),
                len(SAMPLES),
                tables=2,
                bot_names=list(SAMPLES),
                default=True,
            )
        name = DEMO
        if session.scalar(select(Tournament).where(Tournament.name == name)) is not None:
            return name
        rules = Ruleset.parse("classic")
        tournament_store.create(
            session,
            name,
            rules,
            list(SAMPLES),
            table_size=len(SAMPLES),
            games=games,
            duplicate=True,
        )
        tournament_store.create(
            session,
            f"{name}-ladder",
            rules,
            list(SAMPLES),
            table_size=2,
            games=1,
            format=formats.LADDER.name,
        )
        return name

    return arena.db.transaction(work)


def is_open(arena: Platform, name: str) -> bool:
    with arena.db.read() as session:
        return tournament_store.get(session, name).status is not TournamentStatus.DONE


def stop_ladder(db: Database, name: str) -> None:
    """Stop the demo's ladder (if it was made: Ctrl-C may come before)."""
    from arena.store import ladder

    def work(session: Session) -> None:
        tournament = session.scalar(select(Tournament).where(Tournament.name == f"{name}-ladder"))
        if tournament is not None and tournament.status is not TournamentStatus.DONE:
            ladder.stop(session, tournament)

    db.transaction(work)


def stop_demo_ladder(database_url: str) -> None:
    """On the way out: a ladder left running would play for nobody at the next start."""
    from arena.store import schema

    db = Database(database_url)
    try:
        if schema.current(db) == schema.head():  # Ctrl-C may come before the migrations
            stop_ladder(db, DEMO)
    finally:
        db.dispose()
