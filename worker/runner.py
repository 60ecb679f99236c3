"""``arena worker``: an RQ worker that plays matches, plus a reconciler thread.

Only ``REDIS_URL`` and ``ARENA_DATABASE_URL`` are needed, so workers run on any
machine that reaches both. The worker survives Redis restarts (it reconnects), and
every worker repairs what others left behind (expired leases, lost jobs), so a
match whose worker was killed is played again within about 20 seconds (the lease
is 15 s, the reconciler runs every 5 s).
"""

from __future__ import annotations

import logging
import os
import threading
import time

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from sqlalchemy import select

from arena.sandbox import availability
from arena.sandbox.cgroup import sweep
from arena.settings import Settings
from arena.store import ladder, matches
from arena.store.models import Tournament, TournamentStatus
from worker import jobs
from worker import queue as work_queue

log = logging.getLogger(__name__)
RECONCILE_SECONDS = 5.0


def reconcile_once(queue) -> matches.Repairs:  # noqa: ANN001 - an rq Queue
    repairs = matches.reconcile(
        jobs.database(), lambda job_id: work_queue.job_pending(queue, job_id)
    )
    again = repairs.requeued + repairs.resent + refill_ladders()
    if again:
        work_queue.enqueue_all(queue, again)
        log.info(
            "reconciled: %d requeued after a lost worker, %d resent, %d failed",
            len(repairs.requeued),
            len(repairs.resent),
            len(repairs.failed),
        )
    return repairs


def refill_ladders() -> list[tuple[int, str]]:
    """Top up running ladders (a worker may have died between a record and its refill)."""
    db = jobs.database()
    with db.read() as session:
        running = list(
            session.scalars(
                select(Tournament.id).where(
                    Tournament.format == ladder.LADDER,
                    Tournament.status == TournamentStatus.RUNNING,
                )
            )
        )
    return [job for tournament_id in running for job in ladder.refill(db, tournament_id)]


class Reconciler(threading.Thread):
    def __init__(self, redis_url: str, interval: float = RECONCILE_SECONDS) -> None:
        super().__init__(daemon=True, name="arena-reconciler")
        self.redis_url, self.interval = redis_url, interval
        self.stopped = threading.Event()

    def run(self) -> None:
        queue = work_queue.match_queue(work_queue.connect(self.redis_url))
        while not self.stopped.wait(self.interval):
            try:
                reconcile_once(queue)
            except Exception:  # Redis or the database is away: try again next time
                log.exception("reconcile failed; retrying in %.0f s", self.interval)


def _log_to_stderr(level: str) -> None:
    """The platform's own messages (sandboxes, reconciler, runtime) beside rq's, which
    configures only its own logger."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s: %(message)s", "%H:%M:%S"))
    for name in ("arena", "worker"):
        logger = logging.getLogger(name)
        if not logger.handlers:
            logger.addHandler(handler)
        logger.setLevel(level)


def run(burst: bool = False, reconcile: bool = True) -> None:
    level = os.environ.get("ARENA_LOG_LEVEL", "INFO")
    _log_to_stderr(level)
    settings = Settings.from_env()
    if not settings.redis_url:
        raise SystemExit("set REDIS_URL to the Redis that carries the matches")
    jobs.database()  # connect and migrate before taking work
    sandbox = availability()
    (log.info if sandbox.mode == "sandboxed" and sandbox.cgroups else log.warning)(
        "%s", sandbox.describe()
    )
    sweep()  # control groups that a killed worker's sandboxes left
    reconciler = Reconciler(settings.redis_url) if reconcile else None
    if reconciler is not None:
        reconciler.start()
    try:
        delay = 0.5
        while True:
            try:
                connection = work_queue.connect(settings.redis_url)
                worker = work_queue.MatchWorker(
                    [work_queue.match_queue(connection)],
                    connection=connection,
                    name=f"arena-{jobs.worker_name()}-{time.monotonic_ns()}",
                    sandbox=sandbox.describe(),
                )
                worker.work(burst=burst, logging_level=level)
                return
            except (RedisConnectionError, RedisTimeoutError) as error:
                log.warning("lost Redis (%s); reconnecting in %.1f s", error, delay)
                time.sleep(delay)
                delay = min(delay * 2, 5.0)
    finally:
        if reconciler is not None:
            reconciler.stopped.set()
        jobs.reset()  # stops the warm sandboxes and closes the streams to bots
