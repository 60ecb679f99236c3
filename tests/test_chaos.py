"""A chaos run: a tournament on PostgreSQL and a private Redis through a storm of worker
kills, a Redis that dies and comes back empty, and every PostgreSQL connection dropped
(a restart as the workers see it; the shared server itself keeps running). It ends with
every match recorded exactly once, ratings equal to a sequential replay, no worker left
behind, and every match whose worker died taken up again (how many seconds that takes,
and how many jobs were taken up ahead of it, depend on the machine: the run prints them).

The storm is a fixed script tied to progress, never to the clock, so a slow machine and a
fast one see the same storm: kill ``KILLS`` workers at evenly spaced counts of recorded
matches (each victim registered and listening, chosen by a seeded draw), lose Redis
once a third is recorded and the database connections once half is.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import socket
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import pytest
from rq import Worker
from rq.intermediate_queue import IntermediateQueue
from rq.job import Job
from sqlalchemy import select

from arena.base.states import MatchStatus
from arena.platform import Platform
from arena.platform import queue as work_queue
from arena.platform.redis_server import RedisServer
from arena.platform.services import Workers
from arena.platform.settings import Settings
from arena.services.tournaments import Progress, TournamentState
from arena.store.models import TournamentMatch
from tests.support.forks import session_forks
from tests.support.services import POSTGRES_ADMIN
from tests.support.waiting import HANG_SECONDS
from tests.support.workers import (
    assert_ratings_replay,
    assert_recorded_exactly_once,
    setup_tournament,
)

#: the store's contract: on SQLite and PostgreSQL alike
pytestmark = pytest.mark.both_databases

MATCHES = 240
WORKERS = 3
#: worker kills, at recorded counts MATCHES * k / (KILLS + 2) for k = 1 .. KILLS
KILLS = 8
#: a match's attempts in this run: a fault takes a match from its worker at most once (a
#: kill, the lost Redis, the dropped connections), so no storm of these can spend them
#: all, however the matches fall among the workers (with the default of 4, a match the
#: storm catches four times is failed, as it should be: tests/test_store.py)
ATTEMPTS = 1 + KILLS + 2


@dataclass
class Storm:
    """The script: which fault is due at how many recorded matches."""

    kills_at: list[int] = field(
        default_factory=lambda: [MATCHES * k // (KILLS + 2) for k in range(1, KILLS + 1)]
    )
    redis_lost_at: int = MATCHES // 3
    database_lost_at: int = MATCHES // 2
    done: list[str] = field(default_factory=list)

    def due(self, recorded: int) -> str | None:
        if "redis" not in self.done and recorded >= self.redis_lost_at:
            return "redis"
        if "database" not in self.done and recorded >= self.database_lost_at:
            return "database"
        kills = self.done.count("kill")
        return "kill" if kills < len(self.kills_at) and recorded >= self.kills_at[kills] else None


class Stall:
    """Fails the run when its matches stay as they are (none claimed, recorded or queued
    again) for :data:`HANG_SECONDS`, a hang: how long the whole run takes is the
    machine's speed, never a verdict."""

    def __init__(self) -> None:
        self.seen: Progress | None = None
        self.since = time.monotonic()

    def check(self, status: TournamentState) -> None:
        if status.matches != self.seen:
            self.seen, self.since = status.matches, time.monotonic()
        assert time.monotonic() - self.since < HANG_SECONDS, f"nothing moved: {status}"


class Orphans:
    """The matches each killed worker held (claimed, or in the job it had started), when
    each went out again, and what happened before a live worker took it up: how long
    it waited, and which jobs of matches never played before were taken ahead of it."""

    def __init__(self) -> None:
        #: match -> (dead worker's pid, when it died, the job the match was in then)
        self.held: dict[int, tuple[int, float, str | None]] = {}
        #: match -> the never-played matches queued when it went out again (id -> job)
        self.ahead: dict[int, dict[int, str | None]] = {}
        self.waits: list[float] = []
        #: per orphan taken up after it was seen queued again: how many jobs of
        #: never-played matches were taken up between
        self.overtaken: list[int] = []
        #: (seconds after the start of the storm of the death, match, wait, what held it)
        self.slowest: list[tuple[float, int, float, str]] = []
        self.began = time.monotonic()
        self.how: dict[int, str] = {}

    def killed(self, arena: Platform, pid: int, job_matches: list[int], moment: float) -> None:
        name = f"{_host()}:{pid}"
        with arena.db.read() as s:
            claimed = set(
                s.scalars(
                    select(TournamentMatch.id).where(
                        TournamentMatch.status == MatchStatus.RUNNING,
                        TournamentMatch.worker == name,
                    )
                )
            )
            queued = set(
                s.scalars(
                    select(TournamentMatch.id).where(
                        TournamentMatch.id.in_(job_matches),
                        TournamentMatch.status == MatchStatus.QUEUED,
                    )
                )
            )
            rows = s.execute(
                select(TournamentMatch.id, TournamentMatch.job_id).where(
                    TournamentMatch.id.in_(claimed | queued)
                )
            )
            jobs = {match_id: job_id for match_id, job_id in rows}
        for match_id in claimed | queued:
            self.held[match_id] = (pid, moment, jobs[match_id])
            self.ahead.pop(match_id, None)  # its wait starts over with this death
            self.how[match_id] = "claimed" if match_id in claimed else "queued in its job"

    def poll(self, arena: Platform) -> None:
        if not self.held:
            return
        with arena.db.read() as s:
            rows = s.execute(
                select(
                    TournamentMatch.id,
                    TournamentMatch.status,
                    TournamentMatch.worker,
                    TournamentMatch.job_id,
                ).where(TournamentMatch.id.in_(list(self.held)))
            ).all()
        out_again = [
            match_id
            for match_id, status, _, job_id in rows
            if status is MatchStatus.QUEUED
            and job_id != self.held[match_id][2]
            and match_id not in self.ahead
        ]
        if out_again:
            fresh = self._never_played(arena)
            for match_id in out_again:
                self.ahead[match_id] = fresh
        for match_id, status, worker, _ in rows:
            dead, moment, _ = self.held[match_id]
            taken = status is MatchStatus.RUNNING and worker != f"{_host()}:{dead}"
            if status is MatchStatus.DONE or taken:
                wait = time.monotonic() - moment
                self.waits.append(wait)
                self.slowest.append((moment - self.began, match_id, wait, self.how[match_id]))
                if match_id in self.ahead:
                    self.overtaken.append(len(self._taken_since(arena, self.ahead.pop(match_id))))
                del self.held[match_id]

    def _never_played(self, arena: Platform) -> dict[int, str | None]:
        """The queued matches no worker has claimed yet (the orphans aside), with their jobs."""
        with arena.db.read() as s:
            rows = s.execute(
                select(TournamentMatch.id, TournamentMatch.job_id).where(
                    TournamentMatch.status == MatchStatus.QUEUED, TournamentMatch.attempts == 0
                )
            )
            return {match_id: job for match_id, job in rows if match_id not in self.held}

    def _taken_since(self, arena: Platform, fresh: dict[int, str | None]) -> list[str]:
        """The jobs of ``fresh`` that have had a match taken up since."""
        with arena.db.read() as s:
            still = set(
                s.scalars(
                    select(TournamentMatch.id).where(
                        TournamentMatch.id.in_(list(fresh)),
                        TournamentMatch.status == MatchStatus.QUEUED,
                    )
                )
            )
        return sorted({str(job) for match_id, job in fresh.items() if match_id not in still})


def _host() -> str:
    return socket.gethostname()


def _listening(redis_url: str) -> dict[int, Worker]:
    """The workers registered on the match queue now, by pid (none while Redis is away)."""
    with contextlib.suppress(Exception):
        queue = work_queue.match_queue(work_queue.connect(redis_url))
        return {worker.pid: worker for worker in Worker.all(queue=queue)}
    return {}


def _jobs_of(arena: Platform, redis_url: str, pid: int) -> list[int]:
    """The queued matches of the jobs a worker (its pid) had when it died, read after its
    death: jobs it started (RQ writes the worker's name, ``host:pid-...``, in the job) or
    jobs taken off the queue and not started (RQ's intermediate list: right after a kill,
    the victim's; a live worker starts one at once). Read before the kill, a job it
    started in between would be missed."""
    with arena.db.read() as s:
        queued = s.execute(
            select(TournamentMatch.id, TournamentMatch.job_id).where(
                TournamentMatch.status == MatchStatus.QUEUED
            )
        ).all()
    by_job: dict[str, list[int]] = {}
    for match_id, job_id in queued:
        if job_id:
            by_job.setdefault(job_id, []).append(match_id)
    with contextlib.suppress(Exception):
        queue = work_queue.match_queue(work_queue.connect(redis_url))
        taken = set(IntermediateQueue(queue.key, connection=queue.connection).get_job_ids())
        prefix = f"{_host()}:{pid}-".encode()
        return [
            match_id
            for job_id, ids in by_job.items()
            if job_id in taken
            or (queue.connection.hget(Job.key_for(job_id), "worker_name") or b"").startswith(prefix)
            for match_id in ids
        ]
    return []


def _failed(arena: Platform) -> dict[int, tuple[int, str | None]]:
    """The failed matches: their attempts and why the last one ended."""
    with arena.db.read() as s:
        rows = s.execute(
            select(TournamentMatch.id, TournamentMatch.attempts, TournamentMatch.error).where(
                TournamentMatch.status == MatchStatus.FAILED
            )
        )
        return {match_id: (attempts, error) for match_id, attempts, error in rows}


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


def _kill_one(
    arena: Platform, workers: Workers, redis_url: str, chance: random.Random, orphans: Orphans
) -> bool:
    """Kill one of the workers that are registered and listening (a seeded draw); False
    while none is (just started, or registering again after Redis came back)."""
    listening = _listening(redis_url)
    candidates = [p for p in workers.processes if p.pid in listening and p.poll() is None]
    if not candidates:
        return False
    victim = chance.choice(candidates)
    os.killpg(victim.pid, signal.SIGKILL)  # the worker and its group, as a machine dies
    moment = time.monotonic()
    victim.wait()
    orphans.killed(arena, victim.pid, _jobs_of(arena, redis_url, victim.pid), moment)
    workers.processes.remove(victim)
    return True


@pytest.mark.slow
@pytest.mark.processes
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_chaos_loses_nothing_records_nothing_twice_and_recovers_within_the_bound(
    tmp_path: Path, database_url: str
) -> None:
    chance = random.Random(14)
    storm, orphans = Storm(), Orphans()
    with RedisServer(tmp_path / "redis") as redis:
        settings = Settings(tmp_path, database_url, redis.url, match_attempts=ATTEMPTS)
        arena = Platform(settings)
        setup_tournament(arena, MATCHES, deals=12)
        workers = Workers(settings, WORKERS, tmp_path / "logs", forks=session_forks())
        workers.__enter__()
        spawned = list(workers.processes)
        try:
            arena.start_tournament("t")
            stall = Stall()  # a hang fails: nothing settled for a long while
            while not (status := arena.tournament_status("t")).over:
                stall.check(status)
                orphans.poll(arena)
                fault = storm.due(status.matches.done)
                if fault is not None and fault != "kill":
                    print(f"chaos: {fault} lost at {time.monotonic() - orphans.began:.1f} s")
                if fault == "redis":
                    redis.stop()  # killed: the queue and the registrations are gone
                    time.sleep(1)
                    redis.start()
                    storm.done.append(fault)
                elif fault == "database":
                    dropped = _drop_connections(database_url)
                    storm.done.append(fault)
                    print(f"chaos: {dropped} database connections dropped")
                elif fault == "kill" and _kill_one(arena, workers, redis.url, chance, orphans):
                    storm.done.append(fault)
                    spawned.append(workers.add(len(spawned)))
                time.sleep(0.1)
            orphans.poll(arena)  # every match is settled now: done, or failed
        finally:
            workers.stop()
    waits = sorted(orphans.waits)
    print(
        f"chaos: {storm.done.count('kill')} workers killed, Redis lost and database "
        f"connections dropped; {len(waits)} matches orphaned, taken up again after median "
        f"{statistics.median(waits or [0]):.1f} s, worst {max(waits or [0]):.1f} s "
        f"(all: {', '.join(f'{w:.1f}' for w in waits)}); jobs of never-played matches "
        f"taken up while one waited: {Counter(orphans.overtaken)}"
    )
    for died, match_id, wait, how in sorted(orphans.slowest, key=lambda s: -s[2])[:5]:
        print(f"chaos: match {match_id} ({how}) died at {died:.1f} s, taken up {wait:.1f} s later")
    assert storm.done.count("kill") == KILLS and {"redis", "database"} <= set(storm.done)
    assert orphans.waits, "the kills orphaned matches"
    assert not _failed(arena), "no fault of the storm fails a match"
    assert not orphans.held, f"orphans never taken up again: {sorted(orphans.held)}"
    # How long that took, and how many jobs were taken up ahead of an orphan while it
    # waited, are printed above, not judged: the seconds are the machine's speed, and
    # which jobs a killed worker held can only be read after its death, racing the
    # workers that take them over (a job it took in the last instant goes unseen). The
    # order (a dead worker's matches go out ahead of the queue) and the bound on an
    # unloaded machine are held by tests/test_recovery.py and tests/test_faults.py.
    assert_recorded_exactly_once(arena, MATCHES)
    assert_ratings_replay(arena)
    assert all(process.poll() is not None for process in spawned), "no worker left behind"
