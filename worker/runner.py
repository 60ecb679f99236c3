"""``arena worker``: an RQ worker that plays matches, plus a reconciler thread.

Only ``REDIS_URL`` and ``ARENA_DATABASE_URL`` are needed, so workers run on any
machine that reaches both. The worker survives Redis restarts (it reconnects), and
every worker repairs what others left behind (expired leases, lost or abandoned jobs),
so a match whose worker was killed is playing again within
:data:`RECOVERY_BOUND_SECONDS`, whatever moment it was killed at.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import threading
import time
from datetime import timedelta
from functools import cache

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from rq import Queue

from arena.base.timing import (
    LOST_AFTER,
    RECONCILE_SECONDS,
    RECONNECT_SECONDS,
    RESTART_CHECK_SECONDS,
)
from arena.platform import queue as work_queue
from arena.platform.extensions import load_formats
from arena.platform.queue import lane_names
from arena.platform.sandbox import availability
from arena.platform.sandbox.box import orphaned, sweep_folders
from arena.platform.sandbox.cgroup import sweep
from arena.platform.settings import Settings
from arena.services import history, retention, tiering
from arena.store import fairplay, matches, scheduling
from worker import jobs, metrics, rq_classes

log = logging.getLogger(__name__)
#: old logs a reconciler moves to the cold store at a time, at most, and how often: its
#: query scans the logs still in the database, too much for every 3 s pass
TIER_PER_PASS = 100
TIER_SECONDS = 300.0


def reconcile_once(
    queue: Queue, watch: work_queue.JobWatch | None = None, lost_after: timedelta = LOST_AFTER
) -> matches.Repairs:
    """One pass of repairs; ``watch`` remembers jobs between passes (see JobWatch)."""
    watch = watch or work_queue.JobWatch(queue)
    repairs = matches.reconcile(
        jobs.database(),
        watch.pending,
        lost_after,
        workers=max(1, work_queue.workers_listening(queue)),
        attempts=jobs.settings().match_attempts,
    )
    refilled = refill_ladders()
    # recorded batches' fair-play rows join the totals here, off the recording path
    jobs.database().transaction(lambda session: fairplay.fold(session))
    if repairs.requeued or repairs.resent:
        work_queue.enqueue_all(queue, repairs.requeued + repairs.resent, at_front=True)
    if refilled:
        work_queue.enqueue_all(queue, refilled)
    if repairs.requeued or repairs.resent or refilled or repairs.failed:
        log.info(
            "reconciled: %d matches queued again after a lost worker, %d re-sent (their job "
            "was lost), %d failed (attempts spent), %d ladder and A/B test matches queued",
            len(repairs.requeued),
            len(repairs.resent),
            len(repairs.failed),
            len(refilled),
        )
    return repairs


def _age_a_little() -> None:
    """A bounded share of the old data's upkeep every :data:`TIER_SECONDS`, at low
    priority: a few old logs to the cold store, a few rating histories thinned, a few
    logs the competitions' retention lets go dropped (``arena logs tier`` and ``arena
    logs drop`` do the rest at once). A part that fails (the database or the cold store
    away) waits for the next time and stops none of the others."""
    for what, work, said in (
        (
            "moving old logs to the cold store",
            lambda db: tiering.tier(db, jobs.settings().logs_hot_days, most=TIER_PER_PASS).moved,
            "moved %d old match logs to the cold store",
        ),
        (
            "thinning rating histories",
            lambda db: history.thin_histories(db, most=TIER_PER_PASS),
            "thinned rating histories: %d old updates removed",
        ),
        (
            "dropping old logs",
            lambda db: retention.drop_old_logs(db, most=TIER_PER_PASS),
            "dropped %d old match logs under their competitions' retention",
        ),
    ):
        try:
            done = work(jobs.database())
        except Exception:
            log.exception("%s failed; trying again later", what)
            continue
        if done:
            log.info(said, done)


def refill_ladders() -> list[tuple[int, str]]:
    """Top up running ladders and A/B tests (a worker may have died between a record and
    its refill); a burst worker only A/B tests (``jobs.stop_when_empty``)."""
    return scheduling.refill_running(jobs.database(), jobs.refilled())


def _sweep() -> None:
    """Remove what killed workers' sandboxes left on this machine: their folders, then
    their control groups, with any process a sandbox half built when its worker died
    left in them (a running bot dies with its worker)."""
    try:
        folders, groups = sweep_folders(), sweep(orphaned)
    except OSError as error:
        log.warning("cannot sweep sandbox leftovers: %s", error)
        return
    if folders or groups:
        log.info("removed what killed workers left: %d sandbox folders, %d groups", folders, groups)


class Reconciler(threading.Thread):
    def __init__(
        self, redis_url: str, queue_name: str, interval: float = RECONCILE_SECONDS
    ) -> None:
        super().__init__(daemon=True, name="arena-reconciler")
        self.redis_url, self.queue_name, self.interval = redis_url, queue_name, interval
        self.stopped = threading.Event()

    def run(self) -> None:
        """A pass every ``interval`` seconds, and one at once when Redis restarted (its
        jobs are gone: the queued matches go out again without waiting)."""
        queue = work_queue.match_queue(work_queue.connect(self.redis_url), self.queue_name)
        watch = work_queue.JobWatch(queue)
        seen_run: str | None = None
        resend = False  # this reconciler sends the whole queue again (until it succeeds)
        due = time.monotonic() + self.interval
        tier_due = time.monotonic() + TIER_SECONDS
        while not self.stopped.wait(RESTART_CHECK_SECONDS):
            run_id = _run_id(queue)
            restarted = seen_run is not None and run_id is not None and run_id != seen_run
            seen_run = run_id or seen_run
            if restarted and run_id is not None and first_to_resend(queue, run_id):
                log.warning("Redis restarted: sending the queued matches again")
                resend, due = True, 0.0  # at once (a failed try waits for the next pass)
            if time.monotonic() < due:
                continue
            due = time.monotonic() + self.interval
            _sweep()
            try:
                reconcile_once(queue, watch, timedelta(0) if resend else LOST_AFTER)
                resend = False
            except Exception:  # Redis or the database is away: try again next time
                log.exception("reconcile failed; retrying in %.0f s", self.interval)
            if time.monotonic() >= tier_due:
                tier_due = time.monotonic() + TIER_SECONDS
                _age_a_little()


def first_to_resend(queue: Queue, run_id: str) -> bool:
    """Whether this reconciler is the one to send the whole queue again after Redis
    restarted as ``run_id``: one of them, or each would push every queued match to the
    front again, ahead of the matches another had already queued again after a lost
    worker (the chaos run found one 35 s late behind a second re-send)."""
    key = f"{queue.key}:resent:{run_id}"
    return bool(queue.connection.set(key, "1", nx=True, ex=3600))


def _run_id(queue: Queue) -> str | None:
    """The Redis server's run id (new at each start), or None while it is away."""
    try:
        return str(queue.connection.info("server")["run_id"])
    except Exception:
        return None


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
    """Play queued matches until stopped (``burst``: until the queue is empty, seating
    no ladder table; see ``jobs.stop_when_empty``). The worker is listening once it has
    reached the database and Redis; what only playing needs (the sandbox probe, the
    referee and gRPC) is loaded beside it (``_prepare``), and it takes no job before
    that is done."""
    settings = Settings.from_env()
    load_formats(settings)
    level = settings.log_level
    _log_to_stderr(level)
    if not settings.redis_url:
        raise SystemExit("set REDIS_URL to the Redis that carries the matches")
    jobs.stop_when_empty(burst)
    jobs.database()  # connect and migrate before taking work
    if settings.worker_metrics:
        metrics.serve(settings.worker_metrics)
    reconciler = Reconciler(settings.redis_url, settings.queue_name) if reconcile else None
    if reconciler is not None:
        reconciler.start()
    try:
        _work(settings.redis_url, settings.queue_name, burst, level)
    finally:
        if reconciler is not None:
            reconciler.stopped.set()
        jobs.reset()  # stops the warm sandboxes and closes the streams to bots


def _prepare(worker: rq_classes.MatchWorker) -> None:
    """Sweep what killed workers left, probe the sandbox (written beside the worker's
    registration for the workers page) and import what playing needs; then put what
    start-up made out of the garbage collector's walk (each full collection walked the
    half-million objects of the imports again)."""
    _sweep()
    sandbox = availability()
    (log.info if sandbox.mode == "sandboxed" and sandbox.cgroups else log.warning)(
        "%s", sandbox.describe()
    )
    worker.set_sandbox(sandbox.describe())
    jobs.warm_up()
    _freeze_start_up()


@cache
def _freeze_start_up() -> None:
    """Once a process: a worker made again after Redis came back leaves what the lost one
    held (its connection, its registration) to the collector, not frozen with the rest."""
    gc.freeze()


def _work(redis_url: str, queue_name: str, burst: bool, level: str) -> None:
    """Run an RQ worker until it is told to stop (or, with ``burst``, the queue is
    empty once the matches it took are recorded). A worker that lost Redis is buried
    (its registration removed once Redis answers again) and a new one, under a new name,
    takes over; the wait between attempts doubles while Redis stays away, up to 5 s, and
    starts over once it answers."""
    first, most = RECONNECT_SECONDS
    delay, previous = first, None
    sandbox: str | None = None  # known once the first worker prepared
    while True:
        try:
            connection = work_queue.connect(redis_url)
            connection.ping()
            delay = first
            if previous is not None:
                _bury(previous)
            previous = rq_classes.MatchWorker(
                [rq_classes.locked_queue(connection, lane) for lane in lane_names(queue_name)],
                connection=connection,
                name=f"arena-{jobs.worker_name()}-{time.monotonic_ns()}",
                sandbox=sandbox,
                prepare=_prepare if sandbox is None else None,
                private_full=jobs.private_full,
            )
            previous.work(burst=burst, logging_level=level)
            sandbox = previous.sandbox
            if previous._shutdown_requested_date is not None:
                return
            if burst:
                jobs.drain()  # what it records may queue more (ladders, A/B tests)
                if not any(
                    len(rq_classes.locked_queue(connection, lane))
                    for lane in lane_names(queue_name)
                ):
                    return
                continue
            log.warning("worker %s stopped on an error; a new one takes over", previous.name)
        except (RedisConnectionError, RedisTimeoutError) as error:
            log.warning("lost Redis (%s); reconnecting in %.1f s", error, delay)
        time.sleep(delay)
        delay = min(delay * 2, most)


def _bury(worker: rq_classes.MatchWorker) -> None:
    """Remove a replaced worker's registration and stop its listener (best effort)."""
    with contextlib.suppress(Exception):
        worker.register_death()
    with contextlib.suppress(Exception):
        worker.unsubscribe()
