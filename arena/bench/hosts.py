"""The platform on several hosts, measured on the test bed (arena/bench/testbed.py).

A services host (PostgreSQL, Redis with passwords), two worker hosts (their own data
dirs, no file shared), a host serving an endpoint bot, and this process as the operator's
machine. Two tournaments of an uploaded bot (the README's, whose code the worker hosts
never saw), the endpoint bot and two samples: the first played on both hosts (matches a
minute); in the second (four times longer) the first worker host's link is cut while it
plays, and mended once its matches were given back (their leases lapsed): how long that
took, until the other host recorded them and until the cut host recorded again, and
whether every match was recorded and rated once. Needs root (network namespaces).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from arena.base.states import BotKind, MatchStatus
from arena.bench import testbed
from arena.engine import Ruleset
from arena.platform import Platform
from arena.platform.submission import submit, wait
from arena.store import bots, tournaments
from arena.store.models import RatingChange, TournamentMatch

UPLOADED = Path(__file__).with_name("uploaded_bot.py")
RULES = Ruleset.parse("classic")
FIELD = ["up", "far", "random", "counter"]
#: seconds any one step may take before the bench gives up
STEP_SECONDS = 600.0


def run(games: int = 48, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    say = progress or (lambda _: None)
    with testbed.site() as site, tempfile.TemporaryDirectory() as tmp:
        platform = site.platform
        say("the site: services, two worker hosts, a bot's host")
        platform.db.transaction(
            lambda s: [bots.register_sample(s, name) for name in ("random", "counter")]
        )
        far = site.serve_bot(testbed.SLOW_BOT)
        platform.db.transaction(lambda s: bots.add_bot(s, "far", BotKind.ENDPOINT, far))
        folder = Path(tmp) / "up"
        folder.mkdir()
        (folder / "bot.py").write_text(UPLOADED.read_text())
        for host in site.workers:
            site.start_worker(host)
        made = submit(platform, "up", BotKind.PATH, str(folder), queued=True)
        began = time.monotonic()
        settled = wait(platform.db, "up", made.version, timeout=STEP_SECONDS)
        if settled.status != "ready":
            raise RuntimeError(f"the upload was not qualified: {settled.reason}")
        qualified = time.monotonic() - began
        say(f"a tournament of {games} games on both hosts")
        both = _tournament(platform, "both", games)
        began = time.monotonic()
        _until(lambda: _done(platform, "both") == games, "the first tournament never ended")
        wall = time.monotonic() - began
        say(f"a tournament of {4 * games} games, the first worker host cut while it plays")
        cut = _cut_and_mended(site, platform, 4 * games)
        return {
            "games": games,
            "upload_qualified_s": round(qualified, 1),
            "matches_per_min_two_hosts": round(games / wall * 60, 1),
            "hosts_that_played": sorted(_hosts(platform, both)),
            **cut,
        }


def _cut_and_mended(site: testbed.Site, platform: Platform, games: int) -> dict[str, Any]:
    """A tournament of ``games`` (enough to go on past the cut's end), cut and mended."""
    tournament = _tournament(platform, "cut", games)
    cut, _ = site.workers
    held = _until(
        lambda: _on(platform, tournament, MatchStatus.RUNNING, "w1:"),
        "the first worker host never played",
    )
    cut.cut()
    at_cut = time.monotonic()
    _until(
        lambda: not set(held) & set(_on(platform, tournament, MatchStatus.RUNNING, "w1:")),
        "the cut host's matches were never given back",
    )
    taken_over = time.monotonic() - at_cut
    recorded_before = len(_on(platform, tournament, MatchStatus.DONE, "w1:"))
    cut.mend()
    at_mend = time.monotonic()
    _until(
        lambda: (
            len(_on(platform, tournament, MatchStatus.DONE, "w1:")) > recorded_before
            or _done(platform, "cut") == games
        ),
        "the mended host never recorded again",
    )
    back = len(_on(platform, tournament, MatchStatus.DONE, "w1:")) > recorded_before
    rejoined = time.monotonic() - at_mend if back else None  # None: nothing was left
    _until(  # by the other host, or by the cut one once it is back
        lambda: set(held) <= set(_on(platform, tournament, MatchStatus.DONE, "")),
        "the cut host's matches were never recorded",
    )
    recorded = time.monotonic() - at_cut
    _until(lambda: _done(platform, "cut") == games, "the second tournament never ended")
    with platform.db.read() as session:
        completions = session.scalars(
            select(TournamentMatch.completion).where(TournamentMatch.tournament_id == tournament)
        ).all()
        failed = session.scalar(
            select(func.count())
            .select_from(TournamentMatch)
            .where(
                TournamentMatch.tournament_id == tournament,
                TournamentMatch.status != MatchStatus.DONE,
            )
        )
        ratings = session.scalar(
            select(func.count())
            .select_from(RatingChange)
            .join(TournamentMatch, TournamentMatch.id == RatingChange.match_id)
            .where(TournamentMatch.tournament_id == tournament)
        )
    return {
        "matches_held_by_the_cut_host": len(held),
        "given_back_after_s": round(taken_over, 1),
        "held_recorded_after_s": round(recorded, 1),
        "cut_host_recorded_again_after_s": None if rejoined is None else round(rejoined, 1),
        "recorded_once": sorted(c for c in completions if c is not None)
        == list(range(1, games + 1)),
        "rated_once": ratings == len(FIELD) * games,
        "failed": failed,
    }


def _tournament(platform: Platform, name: str, games: int) -> int:
    platform.db.transaction(lambda s: tournaments.create(s, name, RULES, FIELD, 4, games))
    platform.start_tournament(name)
    with platform.db.read() as session:
        return tournaments.get(session, name).id


def _done(platform: Platform, name: str) -> int:
    with platform.db.read() as session:
        return tournaments.get(session, name).completed


def _on(platform: Platform, tournament: int, status: MatchStatus, host: str) -> list[int]:
    """The matches of ``tournament`` in ``status`` whose worker is on ``host``."""
    with platform.db.read() as session:
        rows = session.execute(
            select(TournamentMatch.id, TournamentMatch.worker).where(
                TournamentMatch.tournament_id == tournament, TournamentMatch.status == status
            )
        ).all()
    return [match for match, worker in rows if (worker or "").startswith(host)]


def _hosts(platform: Platform, tournament: int) -> set[str]:
    with platform.db.read() as session:
        workers = session.scalars(
            select(TournamentMatch.worker).where(TournamentMatch.tournament_id == tournament)
        ).all()
    return {(worker or "").split(":")[0] for worker in workers}


def _until(condition: Callable[[], Any], what: str) -> Any:
    deadline = time.monotonic() + STEP_SECONDS
    while not (found := condition()):
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} ({STEP_SECONDS:g} s)")
        time.sleep(0.2)
    return found
