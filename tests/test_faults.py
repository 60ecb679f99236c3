"""Faults: a worker killed mid-match, Redis restarted, PostgreSQL connections dropped.
The tournament completes and every match is recorded exactly once."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import select

from arena.base import jobs as store_jobs
from arena.base.states import MatchStatus
from arena.base.timing import RECOVERY_BOUND_SECONDS
from arena.platform import Platform
from arena.platform.redis_server import RedisServer
from arena.platform.services import Workers
from arena.platform.settings import Settings
from arena.store.models import TournamentMatch
from tests.support.forks import session_forks
from tests.support.services import POSTGRES_ADMIN
from tests.support.waiting import wait_until
from tests.support.workers import (
    assert_ratings_replay,
    assert_recorded_exactly_once,
    ready_at,
    setup_tournament,
    wait_done,
)

pytestmark = [pytest.mark.processes, pytest.mark.both_databases]


def running_match(arena: Platform) -> TournamentMatch:
    def running() -> TournamentMatch | None:
        with arena.db.read() as s:
            return s.scalar(
                select(TournamentMatch).where(TournamentMatch.status == MatchStatus.RUNNING)
            )

    return wait_until(running, "no match started")


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_match_whose_worker_is_killed_mid_play_is_played_again_within_the_bound(
    settings: Settings,
) -> None:
    arena = Platform(settings)
    setup_tournament(arena, 16, deals=40)  # long matches, so one is surely mid-play
    with Workers(settings, 1, settings.data_dir / "logs", forks=session_forks()) as workers:
        arena.start_tournament("t")  # 16 matches for one worker: the first job has 8
        victim = running_match(arena)
        os.killpg(workers.processes[0].pid, signal.SIGKILL)
        killed_at = time.monotonic()
        with arena.db.read() as s:
            job = list(
                s.scalars(select(TournamentMatch).where(TournamentMatch.job_id == victim.job_id))
            )
        held = [match.id for match in job if match.status is MatchStatus.RUNNING]
        running_again = ready_at(arena, workers.add(1))
        deadline = running_again + RECOVERY_BOUND_SECONDS + 30
        while True:
            with arena.db.read() as s:
                states = [s.get(TournamentMatch, match_id) for match_id in held]
            if all(match.status is MatchStatus.DONE for match in states):
                break
            assert time.monotonic() < deadline, "never played again"
            time.sleep(0.2)
        done_at = time.monotonic()
        recovered, since_kill = done_at - max(killed_at, running_again), done_at - killed_at
        wait_done(arena)
    assert len(job) == store_jobs.job_sizes(16, workers=1)[0]
    assert len(held) >= 2 and all(m.worker == victim.worker for m in job if m.id in held), (
        "the killed worker held the rest of its job"
    )
    assert all(m.attempts == 2 and m.worker != victim.worker for m in states)
    assert recovered < RECOVERY_BOUND_SECONDS, "from the kill, or another worker's start"
    print(
        f"the killed worker's {len(held)} matches played again {since_kill:.1f} s after the "
        f"kill, {recovered:.1f} s after another worker ran"
    )
    assert_recorded_exactly_once(arena, 16)
    assert_ratings_replay(arena)


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_redis_restart_loses_nothing(tmp_path: Path, database_url: str) -> None:
    with RedisServer(tmp_path / "redis") as server:
        settings = Settings(tmp_path, database_url, server.url)
        arena = Platform(settings)
        setup_tournament(arena, 60, deals=3)
        with Workers(settings, 2, tmp_path / "logs", forks=session_forks()):
            arena.start_tournament("t")
            _wait_some_done(arena, 10)
            server.stop()  # the queue and every job in it are gone
            time.sleep(1)
            server.start()
            status = wait_done(arena)
    assert status.matches.failed == 0
    assert_recorded_exactly_once(arena, 60)
    assert_ratings_replay(arena)


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_dropped_postgresql_connections_are_retried(settings: Settings, database_url: str) -> None:
    arena = Platform(settings)
    setup_tournament(arena, 60, deals=2)
    name = database_url.rsplit("/", 1)[1]
    with Workers(settings, 2, settings.data_dir / "logs", forks=session_forks()):
        arena.start_tournament("t")
        _wait_some_done(arena, 5)
        dropped = 0
        for _ in range(5):
            with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as admin:
                dropped += len(
                    admin.execute(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                        "WHERE datname = %s AND pid <> pg_backend_pid()",
                        (name,),
                    ).fetchall()
                )
            time.sleep(0.3)
        status = wait_done(arena)
    assert dropped > 0, "connections were dropped"
    assert status.matches.failed == 0
    assert_recorded_exactly_once(arena, 60)
    assert_ratings_replay(arena)


def _wait_some_done(arena: Platform, count: int) -> None:
    wait_until(
        lambda: arena.tournament_status("t").matches.done >= count,
        f"never {count} matches done",
    )
