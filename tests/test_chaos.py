"""Issue 14's chaos run: a tournament on PostgreSQL and a private Redis while workers are
killed at random moments, Redis is killed and comes back empty, and every PostgreSQL
connection is dropped (a restart as the workers see it; the shared server itself keeps
running). It ends with every match recorded exactly once, ratings equal to a sequential
replay, no worker left behind, and no match waiting longer than the stated bound after
its worker died."""

from __future__ import annotations

import os
import random
import signal
import socket
import statistics
import time
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import select

from arena.platform import Platform
from arena.platform.redis_server import RedisServer
from arena.platform.services import Workers
from arena.platform.settings import Settings
from arena.store.models import Match, MatchStatus
from arena.timing import RECOVERY_BOUND_SECONDS
from tests.support.services import POSTGRES_ADMIN
from tests.support.workers import (
    assert_ratings_replay,
    assert_recorded_exactly_once,
    setup_tournament,
)

MATCHES = 400
WORKERS = 3


class Orphans:
    """The matches each killed worker held, and when each was taken up again."""

    def __init__(self) -> None:
        self.held: dict[int, tuple[str, float]] = {}  # match -> (dead worker, killed at)
        self.waits: list[float] = []

    def killed(self, arena: Platform, worker: str) -> None:
        moment = time.monotonic()
        with arena.db.read() as s:
            running = s.scalars(
                select(Match.id).where(Match.status == MatchStatus.RUNNING, Match.worker == worker)
            )
            for match_id in running:
                self.held[match_id] = (worker, moment)

    def poll(self, arena: Platform) -> None:
        if not self.held:
            return
        with arena.db.read() as s:
            rows = s.execute(
                select(Match.id, Match.status, Match.worker).where(Match.id.in_(list(self.held)))
            ).all()
        for match_id, status, worker in rows:
            dead, moment = self.held[match_id]
            if status is MatchStatus.DONE or (status is MatchStatus.RUNNING and worker != dead):
                self.waits.append(time.monotonic() - moment)
                del self.held[match_id]


def _drop_connections(database_url: str) -> int:
    name = database_url.rsplit("/", 1)[1]
    with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as admin:
        return len(
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = %s AND pid <> pg_backend_pid()",
                (name,),
            ).fetchall()
        )


@pytest.mark.slow
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_chaos_loses_nothing_records_nothing_twice_and_recovers_within_the_bound(
    tmp_path: Path, database_url: str
) -> None:
    chance = random.Random(14)
    orphans = Orphans()
    host = socket.gethostname()
    with RedisServer(tmp_path / "redis") as redis:
        settings = Settings(tmp_path, database_url, redis.url)
        arena = Platform(settings)
        setup_tournament(arena, MATCHES, deals=12)
        workers = Workers(settings, WORKERS, tmp_path / "logs")
        workers.__enter__()
        spawned = list(workers.processes)
        try:
            arena.start_tournament("t")
            began, events, redis_lost, database_lost = time.monotonic(), [], False, False
            while arena.tournament_status("t")["status"] != "done":
                assert time.monotonic() - began < 600, arena.tournament_status("t")
                time.sleep(chance.uniform(0.5, 2.0))
                orphans.poll(arena)
                done = arena.tournament_status("t")["matches"]["done"]
                if not redis_lost and done > MATCHES // 3:
                    redis.stop()  # killed: the queue and the registrations are gone
                    time.sleep(1)
                    redis.start()
                    redis_lost = True
                    events.append("redis restarted empty")
                elif not database_lost and done > MATCHES // 2:
                    events.append(f"{_drop_connections(database_url)} connections dropped")
                    database_lost = True
                elif done < MATCHES - 20:
                    index = chance.randrange(len(workers.processes))
                    victim = workers.processes[index]
                    os.killpg(victim.pid, signal.SIGKILL)
                    victim.wait()
                    orphans.killed(arena, f"{host}:{victim.pid}")
                    workers.processes.pop(index)
                    spawned.append(workers.add(len(spawned)))
                    events.append("worker killed")
            while orphans.held:
                orphans.poll(arena)
                time.sleep(0.2)
        finally:
            workers.stop()
    kills = events.count("worker killed")
    print(
        f"chaos: {kills} workers killed, {events[-3:]}, {len(orphans.waits)} matches orphaned; "
        f"taken up again after median {statistics.median(orphans.waits or [0]):.1f} s, "
        f"worst {max(orphans.waits or [0]):.1f} s"
    )
    assert kills >= 5 and "redis restarted empty" in events
    assert max(orphans.waits or [0]) < RECOVERY_BOUND_SECONDS
    assert arena.tournament_status("t")["matches"]["failed"] == 0
    assert_recorded_exactly_once(arena, MATCHES)
    assert_ratings_replay(arena)
    assert all(process.poll() is not None for process in spawned), "no worker left behind"
