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
from arena.store.schema import upgrade
from worker import queue as work_queue
from worker.seats import seats_for

log = logging.getLogger(__name__)
HEARTBEAT_SECONDS = 5


@lru_cache(maxsize=1)
def database() -> Database:
    db = Database(Settings.from_env().database_url)
    upgrade(db)
    return db


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def play_match(match_id: int) -> str:
    """Play match ``match_id`` if it is still queued; record it once."""
    db = database()
    plan = matches.claim(db, match_id, worker_name())
    if plan is None:
        return "skipped: not queued (done, failed, or taken by another worker)"
    try:
        with _Heartbeat(db, plan), ExitStack() as stack:
            ruleset = Ruleset.from_dict(plan.rules)
            hidden = [Settings.from_env().data_dir]
            seats = seats_for(plan.seats, ruleset, plan.seed, stack, hidden)
            referee = Referee(
                ruleset, seats, plan.seed, RefereeSettings(**plan.settings), match_id=str(match_id)
            )
            began = time.perf_counter()
            match_log = aio.run(referee.run())
            referee_ms = (time.perf_counter() - began) * 1000
        recorded = matches.record(db, plan, match_log, referee_ms)
        if plan.format == ladder.LADDER:
            for next_match, job_id in ladder.refill(db, plan.tournament_id):
                _requeue(next_match, job_id)
    except Exception as error:  # infrastructure: the bots' failures never reach here
        status, job_id = matches.give_back(db, plan, f"{type(error).__name__}: {error}")
        if job_id is not None:
            _requeue(match_id, job_id)
        log.exception("match %s failed; it is now %s", match_id, status)
        raise
    return "recorded" if recorded else "discarded: the claim was lost"


def _requeue(match_id: int, job_id: str) -> None:
    url = Settings.from_env().redis_url
    if url:
        work_queue.enqueue(work_queue.match_queue(work_queue.connect(url)), match_id, job_id)


class _Heartbeat:
    """Renews the match's lease while it is played (a dead worker stops renewing)."""

    def __init__(self, db: Database, plan: matches.MatchPlan) -> None:
        self.db, self.plan = db, plan
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> _Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(HEARTBEAT_SECONDS):
            try:
                if not matches.renew(self.db, self.plan.match_id, self.plan.claim):
                    log.warning("match %s: the claim was lost", self.plan.match_id)
                    return
            except Exception:  # a failed renewal is retried at the next beat
                log.exception("match %s: cannot renew the lease", self.plan.match_id)
