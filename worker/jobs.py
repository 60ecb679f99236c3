"""The job a worker runs: play a few matches and record each once.

The matches are played on the worker's runtime (``worker.runtime``: an event loop in
a thread of the worker's own process, which keeps streams to bots and warm sandboxes
across jobs and plays several matches at once) and recorded by its pipeline
(``worker.pipeline``), which keeps them in flight across jobs.
Channels to bots are created in that loop, never inherited from a parent process (a
gRPC channel does not survive fork): workers run jobs in their own process (rq's
SimpleWorker), which also saves the fork per job.
"""

from __future__ import annotations

import logging
import os
import socket
from functools import lru_cache
from typing import TYPE_CHECKING

from rq import Queue, get_current_job

from arena.base.jobs import is_private
from arena.base.timing import FLUSH_SECONDS, PRIVATE_WAIT_SECONDS
from arena.platform import queue as work_queue
from arena.platform.extensions import load_formats
from arena.platform.settings import Settings
from arena.store.cache import ArtifactCache
from arena.store.cold import ColdStore
from arena.store.db import Database
from arena.store.schema import upgrade
from arena.tournament import formats

if TYPE_CHECKING:
    from worker.pipeline import Outcomes, Pipeline
    from worker.runtime import Runtime

log = logging.getLogger(__name__)


#: this worker stops once the queue is empty (``stop_when_empty``)
_burst = False


def stop_when_empty(burst: bool) -> None:
    """Whether this worker stops once the queue is empty (``--burst``). Such a worker
    tops up A/B tests, which end at their verdict, but seats no ladder table: a ladder
    plays until it is stopped, so the queue would never be empty (long-running workers
    keep the ladders going)."""
    global _burst
    _burst = burst


def refilled() -> tuple[str, ...]:
    """The formats this worker tops up, after a record and at each reconciliation."""
    return formats.self_ending() if _burst else formats.self_scheduling()


@lru_cache(maxsize=1)
def settings() -> Settings:
    """The worker's settings, read from its environment once (the formats it names
    registered)."""
    found = Settings.from_env()
    load_formats(found)
    return found


@lru_cache(maxsize=1)
def database() -> Database:
    found = settings()
    db = Database(found.database_url, ColdStore(found.cold_store_url(), found.cold_store_options))
    upgrade(db)
    return db


@lru_cache(maxsize=1)
def runtime() -> Runtime:
    """The worker's runtime, started on first use (imported then too: a worker registers
    before it loads the referee, gRPC and the sandboxes; see ``warm_up``)."""
    from worker.runtime import Runtime
    from worker.warm import WarmPolicy

    cache = ArtifactCache(settings().data_dir / "artifacts", database())
    return Runtime(
        cache=cache,
        concurrency=settings().worker_concurrency,
        policy=WarmPolicy(match_cpu_seconds=settings().match_cpu_seconds),
    )


def reset() -> None:
    """Finish the matches in flight, stop the runtime and forget the settings, the
    database and the queue: read them again from the environment on next use (a
    process that changes its environment, such as a test); a long-running worker's
    refills again (``stop_when_empty``)."""
    if pipeline.cache_info().currsize:
        outcomes = pipeline().close()
        if outcomes.counts or outcomes.failures:
            log.info("before stopping: %s", outcomes)
    if runtime.cache_info().currsize:
        runtime().close()
    stop_when_empty(False)
    for cached in (settings, database, _queue, pipeline, runtime):
        cached.cache_clear()


def warm_up() -> None:
    """Import what playing needs (the runtime, the referee, gRPC), so that the first job
    does not wait for it: a worker calls this once it is listening."""
    import worker.runtime  # noqa: F401


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def play_matches(match_ids: list[int]) -> str:
    """Claim those of ``match_ids`` still queued and hand them to the worker's pipeline
    (``worker.pipeline``), which plays them beside the matches of earlier jobs and
    records each once; return once the worker has room for another job.

    A job may carry several matches (RQ's own cost per job is several milliseconds):
    they are claimed together under one lease, and recorded with the other results of
    the same ``FLUSH_SECONDS``. A platform failure gives its match back (queued again);
    the worker's log says why."""
    flow = pipeline()
    job = get_current_job()
    private = job is not None and is_private(job.id)
    played, deferred, passed = flow.take(match_ids, private)
    if private and passed and not played:  # no private room: look at the ranked queue
        flow.wait_for_private_room(PRIVATE_WAIT_SECONDS, _ranked_waiting)  # not at once
    flow.wait_for_room()
    runtime().submit(runtime().tidy())
    said = f"{played} in play"
    if deferred:
        said += f", {deferred} waiting for a bot's limit of matches at once"
    if passed:
        said += f", {passed} passed on to a worker with room"
    skipped = len(match_ids) - played - deferred - passed
    if skipped:
        said += f", {skipped} skipped: not queued (done, failed, stale, or taken)"
    return said


def drain() -> Outcomes:
    """Wait until every match this worker took is recorded or given back (a worker that
    stops, or a test); what became of them."""
    if not pipeline.cache_info().currsize:
        return _no_outcomes()
    return pipeline().drain()


def _no_outcomes() -> Outcomes:
    from worker.pipeline import Outcomes

    return Outcomes()


@lru_cache(maxsize=1)
def pipeline() -> Pipeline:
    """The worker's matches in flight, from claim to record (started on first use)."""
    from worker.pipeline import Pipeline

    return Pipeline(
        database(),
        runtime(),
        requeue=lambda match_id, job_id: _requeue(match_id, job_id, at_front=True),
        send=_send,
        send_first=lambda jobs: _send(jobs, at_front=True),
        flush_seconds=lambda: FLUSH_SECONDS,
        worker=worker_name(),
        attempts=settings().match_attempts,
        refilled=refilled(),
    )


def qualify_version(version_id: int) -> str:
    """Play a pending bot version's qualification match and settle it."""
    from arena.platform.submission import qualify_version as qualify

    result = qualify(database(), settings().data_dir, version_id, settings().private_limits)
    if result.jobs:  # a gate's first pairs
        _send(list(result.jobs))
    return f"{result.bot} v{result.version}: {result.status}: {result.reason}"


def _send(jobs: list[tuple[int, str]], at_front: bool = False) -> None:
    queue = _queue()
    if queue is not None:  # a pair's two matches share one job
        work_queue.enqueue_all(queue, jobs, at_front)


@lru_cache(maxsize=1)
def _queue() -> Queue | None:
    """The match queue, connected once (its connection pool reconnects after a restart)."""
    url = settings().redis_url
    return work_queue.match_queue(work_queue.connect(url), settings().queue_name) if url else None


def private_full() -> bool:
    """Whether this worker's private share is in play (it then reads the ranked lane
    only)."""
    return bool(pipeline.cache_info().currsize) and pipeline().private_room() == 0


def _ranked_waiting() -> bool:
    """Whether a job waits in the ranked lane (the queue itself)."""
    queue = _queue()
    return queue is not None and queue.count > 0


def _requeue(match_id: int, job_id: str, at_front: bool = False) -> None:
    queue = _queue()
    if queue is not None:
        work_queue.enqueue(queue, match_id, job_id, at_front)
