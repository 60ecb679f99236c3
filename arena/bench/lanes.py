"""Ranked play beside an owner's slow private work: the stall it once caused, measured.

A platform as ``arena up`` runs it (a private Redis, SQLite, two workers) with a
competition of the four samples and the README's truthful bot, uploaded (tables of 4, 2
in play, unpaced: it plays as fast as the workers let it). Its matches a minute are
counted over ``window`` seconds, ``windows`` times; then an owner starts three private
tournaments of 200 games (the limits) of an uploaded bot that sleeps ``deadline - 0.4``
seconds at each decision, beside three samples, and the competition is counted again.
Before the private lane and the private share of a worker, this cut the competition
from 649 matches a minute to 2 for about 16 minutes (issue 37).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from arena.bench.local import local_platform
from arena.bench.pacing import SAMPLES, UPLOADED, _played, _start
from arena.bench.pipeline import wait_registered
from arena.engine import Ruleset
from arena.platform import Platform
from arena.platform.services import Workers
from arena.platform.submission import submit
from arena.referee import RefereeSettings
from arena.store import bots as bot_store
from arena.store import competitions, tournaments
from arena.store.models import BotKind, MatchStatus, Tournament, TournamentMatch
from arena.store.owners import add_owner

#: the slow bot's sleep below the deadline (the attack's margin)
MARGIN_SECONDS = 0.4
PRIVATE_TOURNAMENTS = 3
PRIVATE_GAMES = 200


def run(
    window: float = 60.0,
    windows: int = 3,
    workers: int = 2,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    say = progress or (lambda _: None)
    with local_platform("arena-bench-lanes-") as (arena, tmp):
        say("a competition of the samples and an upload; a slow bot qualifying")
        owner_id = _slow_bot(arena, tmp)  # first: it enters no competition
        ladder_id = _competition(arena)
        with Workers(arena.settings, workers, tmp / "logs"):
            wait_registered(arena, workers)
            _start(arena, ladder_id)
            say(f"the competition alone: {windows} x {window:g} s")
            alone = [_rate(arena, ladder_id, window) for _ in range(windows)]
            say(f"{PRIVATE_TOURNAMENTS} private tournaments of {PRIVATE_GAMES} slow games")
            _private_work(arena, owner_id)
            beside = [_rate(arena, ladder_id, window) for _ in range(windows)]
            private = _private_played(arena)
    before, after = statistics.median(alone), statistics.median(beside)
    return {
        "window_s": window,
        "windows": windows,
        "workers": workers,
        "alone_matches_per_min": round(before, 1),
        "beside_private_matches_per_min": round(after, 1),
        "drop_percent": round(100 * (before - after) / before, 1) if before else None,
        "private_matches_played": private,
        "alone_all": [round(r, 1) for r in alone],
        "beside_all": [round(r, 1) for r in beside],
    }


def _competition(arena: Platform) -> int:
    arena.db.transaction(lambda s: [bot_store.register_sample(s, n) for n in SAMPLES])
    arena.db.transaction(
        lambda s: competitions.create(
            s, "main", Ruleset.parse("classic"), 4, tables=2, bot_names=SAMPLES, default=True,
            pace=None,
        )
    )  # fmt: skip
    made = submit(arena, "truthful", BotKind.PATH, str(UPLOADED))
    if not made.accepted:
        raise RuntimeError(f"truthful did not qualify: {made.reason}")
    with arena.db.read() as session:
        return competitions.get(session, "main").tournament_id


def _slow_bot(arena: Platform, folder: Path) -> int:
    """The owner's slow bot, qualified before any competition exists (it plays only in
    its owner's private tournaments)."""
    owner, _ = arena.db.transaction(lambda s: add_owner(s, "slowpoke"))
    path = folder / "slow" / "bot.py"
    path.parent.mkdir()
    sleep = RefereeSettings().deadline - MARGIN_SECONDS
    path.write_text(UPLOADED.read_text().replace("THINK_SECONDS = 0.0", f"THINK_SECONDS = {sleep}"))
    made = submit(arena, "slow", BotKind.PATH, str(path.parent), owner_id=owner.id)
    if not made.accepted:
        raise RuntimeError(f"the slow bot did not qualify: {made.reason}")
    return owner.id


def _private_work(arena: Platform, owner_id: int) -> None:
    from arena.store.models import Owner

    def create(session) -> None:
        owner = session.get_one(Owner, owner_id)
        for index in range(PRIVATE_TOURNAMENTS):
            tournaments.create(
                session, f"slow-{index}", Ruleset.parse("classic"),
                ["slow", "random", "honest", "counter"], 4, PRIVATE_GAMES, owner=owner,
            )  # fmt: skip

    arena.db.transaction(create)
    for index in range(PRIVATE_TOURNAMENTS):
        arena.start_tournament(f"slow-{index}")


def _rate(arena: Platform, ladder_id: int, window: float) -> float:
    """The competition's matches a minute over ``window`` seconds."""
    played, started = _played(arena, ladder_id), time.monotonic()
    time.sleep(window)
    return (_played(arena, ladder_id) - played) * 60 / (time.monotonic() - started)


def _private_played(arena: Platform) -> int:
    with arena.db.read() as session:
        return (
            session.scalar(
                select(func.count(TournamentMatch.id))
                .join(Tournament, Tournament.id == TournamentMatch.tournament_id)
                .where(Tournament.owner_id.is_not(None), TournamentMatch.status == MatchStatus.DONE)
            )
            or 0
        )
