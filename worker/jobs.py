"""The job a worker runs: play one match and record it once.

Channels to bots are created inside the job (in the referee's event loop), never
inherited from a parent process: a gRPC channel does not survive fork. Workers run
jobs in their own process (rq's SimpleWorker), which also saves the fork per job.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from contextlib import ExitStack
from functools import lru_cache

from arena import aio
from arena.engine import Ruleset
from arena.referee import Referee, RefereeSettings
from arena.settings import Settings
from arena.store import ladder, matches
from arena.store.db import Database
from arena.store.models import now
from arena.store.schema import upgrade
from worker import queue as work_queue
from worker.seats import seats_for

log = logging.getLogger(__name__)
HEARTBEAT_SECONDS = 5


@lru_cache(maxsize=1)
def settings() -> Settings:
    """The worker's settings, read from its environment once."""
    return Settings.from_env()


@lru_cache(maxsize=1)
def database() -> Database:
    db = Database(settings().database_url)
    upgrade(db)
    return db


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def play_matches(match_ids: list[int]) -> str:
    """Play those of ``match_ids`` still queued, in turn; record each once.

    A job may carry several matches (RQ's own cost per job is several milliseconds):
    they are claimed together and their leases renewed together, so a worker that dies
    leaves them all to the reconciler. An infrastructure failure gives its match back
    and the others are still played; the job then fails with the reasons."""
    db = database()
    plans = matches.claim_all(db, match_ids, worker_name())
    outcomes: dict[str, int] = {}
    failures: list[str] = []
    with _Heartbeat(db, plans) as heartbeat:
        for plan in plans:
            try:
                outcome = _play(db, plan)
                outcomes[outcome] = outcomes.get(outcome, 0) + 1
            except Exception as error:  # infrastructure: the bots' failures never reach here
                failures.append(f"match {plan.match_id}: {type(error).__name__}: {error}")
            heartbeat.finished(plan.match_id)
    skipped = len(match_ids) - len(plans)
    if skipped:
        outcomes["skipped: not queued (done, failed, stale, or taken)"] = skipped
    if failures:
        raise MatchesFailed("; ".join(failures))
    return ", ".join(f"{count} {outcome}" for outcome, count in outcomes.items())


class MatchesFailed(RuntimeError):
    """Some matches of a job failed for infrastructure reasons (each was given back)."""


def _play(db: Database, plan: matches.MatchPlan) -> str:
    """Play one claimed match and record it; on failure give it back, then re-raise."""
    try:
        with ExitStack() as stack:
            ruleset = Ruleset.from_dict(plan.rules)
            hidden = [settings().data_dir]
            seats = seats_for(plan.seats, ruleset, plan.seed, stack, hidden)
            referee = Referee(
                ruleset,
                seats,
                plan.seed,
                RefereeSettings(**plan.settings),
                match_id=str(plan.match_id),
            )
            started_at = now()
            began = time.perf_counter()
            match_log = aio.run(referee.run())
            referee_ms = (time.perf_counter() - began) * 1000
        recorded = matches.record(db, plan, match_log, referee_ms, started_at)
        if plan.format == ladder.LADDER:
            for next_match, job_id in ladder.refill(db, plan.tournament_id):
                _requeue(next_match, job_id)
    except Exception as error:
        status, job_id = matches.give_back(db, plan, f"{type(error).__name__}: {error}")
        if job_id is not None:
            _requeue(plan.match_id, job_id)
        log.exception("match %s failed; it is now %s", plan.match_id, status)
        raise
    return "recorded" if recorded else "discarded: the claim was lost"


def _requeue(match_id: int, job_id: str) -> None:
    url = settings().redis_url
    if url:
        work_queue.enqueue(work_queue.match_queue(work_queue.connect(url)), match_id, job_id)


class _Heartbeat:
    """Renews the leases of a job's claimed matches until each is played (a dead worker
    stops renewing, and the reconciler queues them again)."""

    def __init__(self, db: Database, plans: list[matches.MatchPlan]) -> None:
        self.db = db
        self.token = plans[0].claim if plans else ""
        self._open = {plan.match_id for plan in plans}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> _Heartbeat:
        if self._open:
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def finished(self, match_id: int) -> None:
        with self._lock:
            self._open.discard(match_id)

    def _run(self) -> None:
        while not self._stop.wait(HEARTBEAT_SECONDS):
            with self._lock:
                still = sorted(self._open)
            if not still:
                return
            try:
                renewed = matches.renew(self.db, still, self.token)
                if renewed < len(still):
                    log.warning("matches %s: %d claims were lost", still, len(still) - renewed)
            except Exception:  # a failed renewal is retried at the next beat
                log.exception("matches %s: cannot renew the leases", still)
