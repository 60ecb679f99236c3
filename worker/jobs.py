"""The job a worker runs: play a few matches and record each once.

The matches are played on the worker's runtime (``worker.runtime``: an event loop in
a thread of the worker's own process, which keeps streams to bots and warm sandboxes
across jobs and plays several matches at once); recording stays on the job's thread.
Channels to bots are created in that loop, never inherited from a parent process (a
gRPC channel does not survive fork): workers run jobs in their own process (rq's
SimpleWorker), which also saves the fork per job.
"""

from __future__ import annotations

import concurrent.futures
import json
import logging
import os
import socket
import threading
import time
from functools import lru_cache
from typing import TYPE_CHECKING

from rq import Queue

from arena.platform import queue as work_queue
from arena.platform.settings import Settings
from arena.store import matches, scheduling
from arena.store.cache import ArtifactCache
from arena.store.db import Database
from arena.store.models import SELF_SCHEDULING
from arena.store.schema import upgrade
from arena.timing import FLUSH_SECONDS, HEARTBEAT_SECONDS

if TYPE_CHECKING:
    from worker.runtime import Runtime

log = logging.getLogger(__name__)


@lru_cache(maxsize=1)
def settings() -> Settings:
    """The worker's settings, read from its environment once."""
    return Settings.from_env()


@lru_cache(maxsize=1)
def database() -> Database:
    db = Database(settings().database_url)
    upgrade(db)
    return db


@lru_cache(maxsize=1)
def runtime() -> Runtime:
    """The worker's runtime, started on first use (imported then too: a worker registers
    before it loads the referee, gRPC and the sandboxes; see ``warm_up``)."""
    from worker.runtime import Runtime, concurrency_from_env, policy_from_env

    cache = ArtifactCache(settings().data_dir / "artifacts", database())
    return Runtime(
        hidden=[settings().data_dir],
        cache=cache,
        concurrency=concurrency_from_env(),
        policy=policy_from_env(),
    )


def reset() -> None:
    """Stop the runtime and forget the settings, the database and the queue: read them
    again from the environment on next use (a process that changes its environment,
    such as a test)."""
    if runtime.cache_info().currsize:
        runtime().close()
    for cached in (settings, database, _queue, runtime):
        cached.cache_clear()


def warm_up() -> None:
    """Import what playing needs (the runtime, the referee, gRPC), so that the first job
    does not wait for it: a worker calls this once it is listening."""
    import worker.runtime  # noqa: F401


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


#: the start of a job's timing line in the worker's log
TIMING_PREFIX = "job timing:"


def play_matches(match_ids: list[int]) -> str:
    """Play those of ``match_ids`` still queued, in turn; record each once.

    A job may carry several matches (RQ's own cost per job is several milliseconds):
    they are claimed together, their leases renewed together (a worker that dies
    leaves them all to the reconciler), and their results recorded together, in one
    transaction per ``FLUSH_SECONDS`` of play. An infrastructure failure gives its
    match back and the others are still played; the job then fails with the reasons."""
    db = database()
    began = time.perf_counter()
    plans = matches.claim_all(db, match_ids, worker_name())
    claim_ms = (time.perf_counter() - began) * 1000
    with _Heartbeat(db, plans) as heartbeat:
        job = _Job(db, heartbeat)
        job.play_all(plans)
        job.flush()
    runtime().submit(runtime().tidy())
    job.log_timing(claim_ms)
    skipped = len(match_ids) - len(plans)
    if skipped:
        job.outcomes["skipped: not queued (done, failed, stale, or taken)"] = skipped
    if job.failures:
        raise MatchesFailed("; ".join(job.failures))
    return ", ".join(f"{count} {outcome}" for outcome, count in job.outcomes.items())


def qualify_version(version_id: int) -> str:
    """Play a pending bot version's qualification match and settle it."""
    from arena.platform.submission import qualify_version as qualify

    result = qualify(database(), settings().data_dir, version_id)
    return f"{result.bot} v{result.version}: {result.status}: {result.reason}"


class MatchesFailed(RuntimeError):
    """Some matches of a job failed for infrastructure reasons (each was given back)."""


class _Job:
    """A job's played matches waiting to be recorded, and what became of each."""

    def __init__(self, db: Database, heartbeat: _Heartbeat) -> None:
        self.db, self.heartbeat = db, heartbeat
        self.pending: list[matches.PlayedMatch] = []
        self.oldest = 0.0  # when the first pending result was played (monotonic)
        self.outcomes: dict[str, int] = {}
        self.failures: list[str] = []
        #: by tournament: ms spent per phase, summed over its matches (they overlap)
        self.timing: dict[int, dict[str, float]] = {}

    def play_all(self, plans: list[matches.MatchPlan]) -> None:
        """Play the claimed matches on the runtime (several at once) and keep each result
        for the next flush (due once the oldest kept result is ``FLUSH_SECONDS`` old);
        give back a match whose play failed."""
        arena = runtime()
        playing = {arena.submit(arena.play(plan)): plan for plan in plans}
        for future in concurrent.futures.as_completed(playing):
            plan = playing[future]
            try:
                played = future.result()
            except Exception as error:  # infrastructure: the bots' failures never reach here
                self._give_back([plan], error)
                continue
            self._time(plan, {"matches": 1, **played.timing})
            if not self.pending:
                self.oldest = time.monotonic()
            self.pending.append(
                matches.PlayedMatch(
                    plan,
                    played.log,
                    played.referee_ms,
                    played.started_at,
                    played.outputs,
                    played.fairplay,
                )
            )
            if time.monotonic() - self.oldest >= FLUSH_SECONDS:
                self.flush()

    def flush(self) -> None:
        """Record the pending results in one transaction, then top up their ladders and
        A/B tests."""
        pending, self.pending = self.pending, []
        if not pending:
            return
        began = time.perf_counter()
        try:
            recorded = matches.record_all(self.db, pending)
        except Exception as error:
            self._give_back([p.plan for p in pending], error)
            return
        record_ms = (time.perf_counter() - began) * 1000 / len(pending)
        for played in pending:
            self._time(played.plan, {"record_ms": record_ms})
        for played, done in zip(pending, recorded, strict=True):
            self._count("recorded" if done else "discarded: the claim was lost")
            self._finished(played.plan)
        self._refill(
            {
                (p.plan.tournament_id, p.plan.format)
                for p in pending
                if p.plan.format in SELF_SCHEDULING
            }
        )

    def _refill(self, tournaments: set[tuple[int, str]]) -> None:
        """Queue the next matches of these ladders and A/B tests (recorded results are
        never given back for a failed refill: the reconciler tops them up too)."""
        queue = _queue()
        for tournament_id, format in tournaments:  # noqa: A001
            try:
                jobs = scheduling.refill(self.db, tournament_id, format)
                if queue is not None and jobs:  # a pair's two matches share one job
                    work_queue.enqueue_all(queue, jobs)
            except Exception:
                log.exception("tournament %s: cannot queue its next matches", tournament_id)

    def _give_back(self, plans: list[matches.MatchPlan], error: Exception) -> None:
        reason = f"{type(error).__name__}: {error}"
        for plan in plans:
            self.failures.append(f"match {plan.match_id}: {reason}")
            log.error("match %s failed: %s", plan.match_id, reason, exc_info=error)
            try:
                status, job_id = matches.give_back(self.db, plan, reason)
                if job_id is not None:
                    _requeue(plan.match_id, job_id, at_front=True)
                log.info("match %s is now %s", plan.match_id, status)
            except Exception:  # the reconciler gives it back once its lease expires
                log.exception("match %s: cannot give it back", plan.match_id)
            self._finished(plan)

    def _time(self, plan: matches.MatchPlan, timing: dict[str, float]) -> None:
        spent = self.timing.setdefault(plan.tournament_id, {})
        for phase, ms in timing.items():
            spent[phase] = spent.get(phase, 0.0) + ms

    def log_timing(self, claim_ms: float) -> None:
        """One line per tournament: where its matches' time went in this job (ms, summed
        over the matches: several play at once), read by ``arena bench pipeline``."""
        for tournament_id, spent in self.timing.items():
            spent = {"claim_ms": claim_ms / len(self.timing), **spent}
            log.info(
                "%s %s",
                TIMING_PREFIX,
                json.dumps(
                    {"tournament": tournament_id, **{k: round(v, 3) for k, v in spent.items()}}
                ),
            )

    def _count(self, outcome: str) -> None:
        self.outcomes[outcome] = self.outcomes.get(outcome, 0) + 1

    def _finished(self, plan: matches.MatchPlan) -> None:
        self.heartbeat.finished(plan.match_id)


@lru_cache(maxsize=1)
def _queue() -> Queue | None:
    """The match queue, connected once (its connection pool reconnects after a restart)."""
    url = settings().redis_url
    return work_queue.match_queue(work_queue.connect(url), settings().queue_name) if url else None


def _requeue(match_id: int, job_id: str, at_front: bool = False) -> None:
    queue = _queue()
    if queue is not None:
        work_queue.enqueue(queue, match_id, job_id, at_front)


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
