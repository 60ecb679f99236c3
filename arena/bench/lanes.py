"""Ranked play beside an owner's slow private work: the stall it once caused, measured.

A platform as ``arena up`` runs it (a private Redis, SQLite, two workers) with a
competition of the four samples and the README's truthful bot, uploaded (tables of 4, 2
in play, unpaced: it plays as fast as the workers let it). Its matches a minute are
counted over ``window`` seconds, ``windows`` times; then an owner starts as much
private work of one kind as the limits let it, with an uploaded bot that sleeps
``deadline - 0.4`` seconds at each decision, and the competition is counted again. The
kinds (each on a platform of its own):

- ``tournaments``: three private tournaments of 200 games, beside three samples;
- ``abtests``: three A/B tests of the slow bot's second version against its first, of
  as many matches as an owner may ask (4,000), at the longest deadline allowed;
- ``scrimmages``: three scrimmages of 200 games against three samples.

Before the private lane and the private share of a worker, private tournaments cut the
competition from 649 matches a minute to 2 for about 16 minutes (issue 37); A/B tests,
in the ranked lane then, took it from 4.8 to 1.6 matches a minute (issue 49).
(People's tables are played by the site, not the workers: they take no worker's slot.)
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from arena.base.states import BotKind, MatchStatus
from arena.bench.local import local_platform
from arena.bench.pacing import SAMPLES, UPLOADED, _played, _start
from arena.bench.pipeline import wait_registered
from arena.engine import Ruleset
from arena.platform import Platform
from arena.platform.services import Workers
from arena.platform.submission import AfterQualifying, submit
from arena.referee import RefereeSettings
from arena.store import bots as bot_store
from arena.store import competitions, tournaments
from arena.store.models import Tournament, TournamentMatch, now
from arena.store.owners import add_owner

#: the slow bot's sleep below the deadline (the attack's margin)
MARGIN_SECONDS = 0.4
PRIVATE_TOURNAMENTS = 3
PRIVATE_GAMES = 200


KINDS = ("tournaments", "abtests", "scrimmages")


def run(
    window: float = 60.0,
    windows: int = 3,
    workers: int = 2,
    progress: Callable[[str], None] | None = None,
    kinds: tuple[str, ...] = KINDS,
    pace: float | None = None,
    database_url: str | None = None,
) -> dict[str, Any]:
    """The competition alone and beside each kind of private work; figures by kind.
    ``pace``: the competition plays that many tables a minute once its ratings settle,
    as ``arena up``'s does (None: unpaced, as fast as the workers let it).
    ``database_url``: an empty database for the one kind asked (SQLite without one)."""
    unknown = set(kinds) - set(KINDS)
    if unknown:
        raise ValueError(f"no kind of private work {sorted(unknown)}: expected {KINDS}")
    if database_url is not None and len(kinds) != 1:
        raise ValueError("an empty database serves one kind: give one with --kinds")
    say = progress or (lambda _: None)
    by_kind = {
        kind: _beside(kind, window, windows, workers, say, pace, database_url) for kind in kinds
    }
    return {
        "window_s": window,
        "windows": windows,
        "workers": workers,
        "pace": pace,
        "database": "postgresql" if database_url else "sqlite",
        "kinds": by_kind,
    }


def _beside(
    kind: str,
    window: float,
    windows: int,
    workers: int,
    say: Callable[[str], None],
    pace: float | None,
    database_url: str | None,
) -> dict[str, Any]:
    with local_platform("arena-bench-lanes-", database_url) as (arena, tmp):
        say(f"{kind}: a competition of the samples and an upload; a slow bot qualifying")
        owner_id = _slow_bot(arena, tmp)  # first: it enters no competition
        ladder_id = _competition(arena, pace)
        with Workers(arena.settings, workers, tmp / "logs"):
            wait_registered(arena, workers)
            _start(arena, ladder_id)
            if pace is not None:
                say(f"{kind}: until every rating settles and the competition plays at its pace")
                _settled(arena, ladder_id)
            say(f"{kind}: the competition alone, {windows} x {window:g} s")
            since = now()
            alone = [_rate(arena, ladder_id, window) for _ in range(windows)]
            waits_alone = _waits(arena, ladder_id, since)
            say(f"{kind}: the competition beside the slow bot's {kind}")
            PRIVATE_WORK[kind](arena, owner_id)
            since = now()
            beside = [_rate(arena, ladder_id, window) for _ in range(windows)]
            waits_beside = _waits(arena, ladder_id, since)
            private = _private_played(arena)
    before, after = statistics.median(alone), statistics.median(beside)
    return {
        "queue_wait_ms_alone": waits_alone,
        "queue_wait_ms_beside": waits_beside,
        "alone_matches_per_min": round(before, 1),
        "beside_private_matches_per_min": round(after, 1),
        "drop_percent": round(100 * (before - after) / before, 1) if before else None,
        "private_matches_played": private,
        "alone_all": [round(r, 1) for r in alone],
        "beside_all": [round(r, 1) for r in beside],
    }


def _competition(arena: Platform, pace: float | None = None) -> int:
    arena.db.transaction(lambda s: [bot_store.register_sample(s, n) for n in SAMPLES])
    arena.db.transaction(
        lambda s: competitions.create(
            s, "main", Ruleset.parse("classic"), 4, tables=2, bot_names=SAMPLES, default=True,
            pace=pace,
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
    for after in (AfterQualifying.LIVE, AfterQualifying.STAGE):  # two versions: A/B tests
        made = submit(arena, "slow", BotKind.PATH, str(path.parent), owner_id=owner.id, after=after)
        if not made.accepted:
            raise RuntimeError(f"the slow bot did not qualify: {made.reason}")
    return owner.id


def _abtests(arena: Platform, owner_id: int) -> None:
    """As many A/B tests of the slow bot as the owner may run, as long as allowed."""
    from arena.abtest import sprt
    from arena.services import abtests, rights
    from arena.store.limits import PrivateLimits
    from arena.store.models import Owner

    limits = PrivateLimits()

    def create(session) -> None:
        owner = session.get_one(Owner, owner_id)
        deadline = rights.private_deadline(session, limits)
        for index in range(limits.running):
            abtests.create_in(
                session, f"slow-{index}", "slow:2", "slow:1", Ruleset.parse("classic"),
                sprt.Bounds(0.0, 5.0), owner=owner, max_matches=limits.abtest_matches,
                settings=RefereeSettings(deadline=deadline), limits=limits,
            )  # fmt: skip

    arena.db.transaction(create)
    with arena.db.read() as session:
        owner = session.get_one(Owner, owner_id)
    for index in range(limits.running):
        arena.start_abtest(f"slow-{index}", owner)


def _scrimmages(arena: Platform, owner_id: int) -> None:
    from arena.services import scrimmages
    from arena.store.limits import PrivateLimits
    from arena.store.models import Owner

    limits = PrivateLimits()
    with arena.db.read() as session:
        owner = session.get_one(Owner, owner_id)
    for _ in range(limits.running):
        asked = scrimmages.ScrimmageRequest(
            bot="slow",
            against=("sample:random", "sample:honest", "sample:counter"),
            games=limits.games,
        )
        made = scrimmages.create(arena.db, asked, owner, limits)
        arena.start_tournament(made.name)


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


PRIVATE_WORK: dict[str, Callable[[Platform, int], None]] = {
    "tournaments": _private_work,
    "abtests": _abtests,
    "scrimmages": _scrimmages,
}


def _settled(arena: Platform, ladder_id: int, poll: float = 1.0) -> None:
    """Until no entry of the competition is provisional (it then plays at its pace)."""
    from arena.store.models import Entry
    from arena.tournament import pacing

    with arena.db.read() as session:
        settled = session.get_one(Tournament, ladder_id).rating.settled_sigma
    while True:
        with arena.db.read() as session:
            entries = session.execute(
                select(Entry.games, Entry.sigma).where(
                    Entry.tournament_id == ladder_id, Entry.retired.is_(False)
                )
            ).all()
        if entries and not any(pacing.provisional(g, s, settled) for g, s in entries):
            return
        time.sleep(poll)


def _waits(arena: Platform, ladder_id: int, since: datetime) -> dict[str, float | None]:
    """The median and 90th percentile of the competition's matches' wait in the queue
    (queued to started, ms), of those started since ``since``."""
    with arena.db.read() as session:
        rows = session.execute(
            select(TournamentMatch.queued_at, TournamentMatch.started_at).where(
                TournamentMatch.tournament_id == ladder_id,
                TournamentMatch.started_at >= since,
                TournamentMatch.queued_at.is_not(None),
            )
        ).all()
    waits = sorted(
        (started - queued).total_seconds() * 1000 for queued, started in rows if queued and started
    )
    if not waits:
        return {"median": None, "p90": None}
    return {
        "median": round(statistics.median(waits), 1),
        "p90": round(waits[int(0.9 * (len(waits) - 1))], 1),
    }


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
