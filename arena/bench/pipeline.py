"""The platform's own cost: matches through Redis, RQ workers and the database.

For each worker count from 1 to N, a fresh tournament of M matches between four
``random`` bots is queued to that many ``arena worker`` processes (already running
and registered), and timed until the database says it is over. The platform's
overhead per match is the wall time minus the time spent inside the referee, over
the matches (measured with one worker, where nothing competes). With ``--bots
inprocess`` the bots run inside the workers, so the figure isolates the platform;
with ``grpc`` they run as endpoints and compete with the workers for the CPU.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rq import Worker
from sqlalchemy import func, select

from arena.engine import Ruleset
from arena.launcher import BotProcesses, BotSpec, command_for
from arena.platform import Platform
from arena.redis_server import RedisServer
from arena.services import Workers
from arena.settings import Settings
from arena.store import bots as bot_store
from arena.store import tournaments as tournament_store
from arena.store.models import BotKind, Match, MatchStatus
from worker import queue as work_queue

BOTS = 4


def run(
    workers: int = 2,
    matches: int = 200,
    bots: str = "inprocess",
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    if bots not in ("inprocess", "grpc"):
        raise ValueError("bots is inprocess or grpc")
    with (
        tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp,
        RedisServer(Path(tmp) / "redis") as redis,
        BotProcesses() as processes,
    ):
        settings = Settings(Path(tmp), f"sqlite:///{tmp}/arena.db", redis.url)
        arena = Platform(settings)
        names = _register_bots(arena, processes, bots)
        per_count = {}
        for count in range(1, workers + 1):
            if progress is not None:
                progress(f"{count} worker{'s' if count > 1 else ''}")
            per_count[count] = _timed_tournament(arena, settings, names, count, matches)
    one = per_count[1]
    return {
        "matches_per_s": round(per_count[workers]["matches_per_s"], 1),
        "overhead_ms_per_match": round(one["overhead_ms_per_match"], 2),
        "referee_ms_per_match": round(one["referee_ms_per_match"], 2),
        "scaling": {
            str(n): round(r["matches_per_s"] / one["matches_per_s"], 2)
            for n, r in per_count.items()
        },
        "matches_per_s_by_workers": {
            str(n): round(r["matches_per_s"], 1) for n, r in per_count.items()
        },
        "workers": workers,
        "matches": matches,
        "bots": bots,
        "database": "sqlite",
    }


def _register_bots(arena: Platform, processes: BotProcesses, bots: str) -> list[str]:
    names = [f"random-{i}" for i in range(BOTS)]

    def work(session) -> None:  # noqa: ANN001
        for name in names:
            if bots == "inprocess":
                bot_store.add_bot(session, name, BotKind.SAMPLE, "random")
            else:
                endpoint = processes.start(command_for(BotSpec("sample", "random")), name)
                bot_store.add_bot(session, name, BotKind.ENDPOINT, endpoint)

    arena.db.transaction(work)
    return names


def _timed_tournament(
    arena: Platform, settings: Settings, names: list[str], count: int, matches: int
) -> dict[str, float]:
    name = f"bench-{count}"
    arena.db.transaction(
        lambda session: tournament_store.create(
            session, name, Ruleset.parse("classic"), names, BOTS, matches, seed=name
        )
    )
    with Workers(settings, count, settings.data_dir / "logs"):
        _wait_registered(arena, count)
        began = time.perf_counter()
        tournament_id = _tournament_id(arena, name)
        arena.start_tournament(name)
        while _open_matches(arena, tournament_id):
            time.sleep(0.05)
        wall = time.perf_counter() - began
    with arena.db.read() as session:
        referee_ms = (
            session.scalar(
                select(func.sum(Match.referee_ms)).where(Match.tournament_id == tournament_id)
            )
            or 0.0
        )
    return {
        "matches_per_s": matches / wall,
        "overhead_ms_per_match": (wall * 1000 * count - referee_ms) / matches,
        "referee_ms_per_match": referee_ms / matches,
    }


def _tournament_id(arena: Platform, name: str) -> int:
    with arena.db.read() as session:
        return tournament_store.get(session, name).id


def _open_matches(arena: Platform, tournament_id: int) -> int:
    with arena.db.read() as session:
        return (
            session.scalar(
                select(func.count())
                .select_from(Match)
                .where(
                    Match.tournament_id == tournament_id,
                    Match.status.not_in([MatchStatus.DONE, MatchStatus.FAILED]),
                )
            )
            or 0
        )


def _wait_registered(arena: Platform, count: int, timeout: float = 60.0) -> None:
    connection = work_queue.connect(arena.settings.redis_url or "")
    deadline = time.monotonic() + timeout
    while len(Worker.all(connection=connection)) < count:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{count} workers did not start within {timeout:.0f} s")
        time.sleep(0.05)
