"""The season's competition, its bots and owners, and the recorder timed on it."""

from __future__ import annotations

import random
import time
from typing import Any

from arena.base.states import BotKind
from arena.bench.season.bulk import season_start
from arena.bench.season.played import Template
from arena.engine import Ruleset
from arena.platform import Platform
from arena.store import bots as bot_store
from arena.store import competitions, fairplay, leases, owners, results
from arena.store.db import Database
from arena.store.models import (
    TournamentMatch,
)
from sample_bots import NAMES

#: bots an owner holds (the owners' pages)
BOTS_AN_OWNER = 10


def competition(arena: Platform, bots: int, table_size: int) -> tuple[int, str, str]:
    """``bots`` bots of ``bots // BOTS_AN_OWNER`` owners entered in the default
    competition; its tournament's id and name, and the first owner's token."""

    def create(session: Any) -> str:
        token = ""
        names = []
        for o in range(max(1, bots // BOTS_AN_OWNER)):
            owner, secret = owners.add_owner(session, f"owner-{o:04d}")
            token = token or secret
            for b in range(BOTS_AN_OWNER):
                number = o * BOTS_AN_OWNER + b
                if number >= bots:
                    break
                name = f"bot-{number:04d}"
                bot_store.add_bot(
                    session, name, BotKind.SAMPLE, NAMES[number % len(NAMES)], owner.id
                )
                names.append(name)
        competitions.create(
            session, "main", Ruleset.parse("classic"), table_size, tables=4,
            bot_names=names, default=True, pace=None,
        )  # fmt: skip
        return token

    token = arena.db.transaction(create)
    with arena.db.read() as session:
        ladder = competitions.get(session, "main").tournament
        return ladder.id, ladder.name, token


# ------------------------------------------------------------------ the recorder's rate
def recorder_rate(
    db: Database, tournament_id: int, pool: list[Template], count: int, batch: int = 20
) -> float:
    """Matches a second the recorder writes (``record_all`` in batches of ``batch``, as
    a worker records a job's matches) into the competition as it stands."""
    with db.engine.connect() as connection:
        start = season_start(connection, tournament_id)
    rng = random.Random(1)
    table_size = len(pool[0].seats)

    def queue(session: Any) -> list[int]:
        made = [
            TournamentMatch.queued(
                tournament_id, index, f"rate/{index}", rng.sample(start.versions, table_size)
            )
            for index in range(start.next_index, start.next_index + count)
        ]
        session.add_all(made)
        session.flush()
        return [match.id for match in made]

    ids = db.transaction(queue)
    plans = leases.claim_all(db, ids, "season-recorder")
    played = [
        results.PlayedMatch(plan, t.log, t.referee_ms, fairplay=t.tallies)
        for plan, t in zip(plans, (rng.choice(pool) for _ in plans), strict=False)
    ]
    began = time.perf_counter()
    for first in range(0, len(played), batch):
        results.record_all(db, played[first : first + batch])
    return len(played) / (time.perf_counter() - began)


def fold_cost(db: Database, tournament_id: int) -> dict[str, float]:
    """Fold the competition's pending fair play (the matches the recorder added) as the
    workers' reconciler does: the matches folded, and the seconds it took, of the
    clock and of this process's CPU."""
    began, cpu = time.perf_counter(), time.process_time()
    folded = db.transaction(lambda session: fairplay.fold(session, tournament_id))
    return {
        "fold_matches": folded,
        "fold_seconds": round(time.perf_counter() - began, 2),
        "fold_cpu_seconds": round(time.process_time() - cpu, 2),
    }
