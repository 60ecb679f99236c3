"""Throughput around a Redis loss: a tournament of in-process bots with N workers; once
a third of it is recorded, Redis is stopped and started again empty (every job and
registration gone). Matches recorded per second before the loss and after it, from
the matches' own ``finished_at``: the reconciler sends the queued matches again in jobs
of the usual size, so the rate after recovers to the rate before."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import select

from arena.base.states import BotKind, MatchStatus
from arena.bench.pipeline import wait_registered
from arena.engine import Ruleset
from arena.platform import Platform
from arena.platform.redis_server import RedisServer
from arena.platform.services import Workers
from arena.platform.settings import Settings
from arena.store import bots as bot_store
from arena.store import tournaments as tournament_store
from arena.store.models import TournamentMatch, now

SAMPLES = ["random", "honest", "counter", "bluffer"]


def run(
    workers: int = 2, matches: int = 3000, progress: Callable[[str], None] | None = None
) -> dict[str, Any]:
    with (
        tempfile.TemporaryDirectory(prefix="arena-bench-recovery-") as tmp,
        RedisServer(Path(tmp) / "redis") as redis,
    ):
        settings = Settings(Path(tmp), f"sqlite:///{tmp}/arena.db", redis.url)
        arena = Platform(settings)
        arena.db.transaction(
            lambda s: [bot_store.add_bot(s, n, BotKind.SAMPLE, n) for n in SAMPLES]
        )
        arena.db.transaction(
            lambda s: tournament_store.create(
                s, "t", Ruleset.parse("classic"), SAMPLES, 4, matches, seed="recovery"
            )
        )
        with Workers(settings, workers, Path(tmp) / "logs"):
            wait_registered(arena, workers)
            arena.start_tournament("t")
            while arena.tournament_status("t").matches.done < matches // 3:
                time.sleep(0.02)
            if progress:
                progress("Redis lost")
            redis.stop()
            lost, lost_at = time.monotonic(), now()
            redis.start()
            while not arena.tournament_status("t").over:
                time.sleep(0.1)
            recovered_in = time.monotonic() - lost
        with arena.db.read() as s:
            finished = sorted(
                t
                for t in s.scalars(
                    select(TournamentMatch.finished_at).where(
                        TournamentMatch.status == MatchStatus.DONE
                    )
                )
                if t is not None
            )
    before = [t for t in finished if t < lost_at]
    after = [t for t in finished if t >= lost_at]
    first_after = after[0] if after else lost_at
    return {
        "workers": workers,
        "matches": matches,
        "before_per_s": round(_rate(before), 1),
        "after_per_s": round(_rate(after), 1),
        "first_match_after_loss_s": round((first_after - lost_at).total_seconds(), 2),
        "rest_of_run_s": round(recovered_in, 1),
    }


def _rate(times: list[datetime]) -> float:
    if len(times) < 2:
        return 0.0
    return (len(times) - 1) / (times[-1] - times[0]).total_seconds()
