"""The Redis side: RQ queues of matches; the platform puts only its own two jobs on
them, and workers run nothing else (worker/rq_classes.py).

Two lanes: the queue itself (``arena``: competitions, qualification, A/B tests) and its
private lane (``arena:private``: owners' own tournaments). A worker takes a job from the
private lane only when the ranked one is empty (RQ reads a worker's queues in order), so
ranked play never waits behind anyone's private work, however much of it is queued.

A match job carries only match ids (one, or a few when a tournament starts: see
``arena.base.jobs.job_sizes``); a qualification job one bot version's id; the database
holds everything else. Jobs are JSON, never pickles, and a worker runs nothing but
:data:`JOB_FUNCTION` and :data:`QUALIFY_FUNCTION`: any other job found on the queue
(another function, callbacks, webhooks, dependencies, arguments that are not ids,
data that is not JSON) is refused and logged, never imported or called.
"""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime

from redis import Redis
from rq import Queue, Retry, Worker
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from arena.base.jobs import is_private
from arena.base.timing import FAILURE_TTL, JOB_TIMEOUT, STRANDED_SECONDS, TAKEN_SECONDS
from arena.platform.settings import DEFAULT_QUEUE

log = logging.getLogger(__name__)

#: the queue's name unless the settings name another (``ARENA_QUEUE``)
QUEUE_NAME = DEFAULT_QUEUE
JOB_FUNCTION = "worker.jobs.play_matches"
QUALIFY_FUNCTION = "worker.jobs.qualify_version"
#: the most match ids one job may carry (a larger job is refused as foreign)
MAX_JOB_MATCHES = 64
#: times a qualification job is run before a platform failure leaves its version pending
QUALIFY_ATTEMPTS = 4


def connect(url: str) -> Redis:
    """A client for ``url`` (``redis://``, or ``rediss://`` for TLS; a password goes in
    the URL: ``redis://:PASSWORD@host:port/0``)."""
    return Redis.from_url(
        url, socket_connect_timeout=5, socket_timeout=30, health_check_interval=30
    )


PRIVATE_LANE = ":private"


def match_queue(connection: Redis, name: str = QUEUE_NAME) -> Queue:
    return Queue(name, connection=connection, serializer=JSONSerializer)


def lane_names(name: str) -> list[str]:
    """The queues of a platform's queue ``name``, in the order a worker reads them."""
    return [name, name + PRIVATE_LANE]


def lane_of(queue: Queue, job_id: str) -> Queue:
    """The queue a job goes in: ``queue``, or its private lane for a private job."""
    if not is_private(job_id) or queue.name.endswith(PRIVATE_LANE):
        return queue
    return Queue(
        queue.name + PRIVATE_LANE,
        connection=queue.connection,
        serializer=queue.serializer,
        job_class=queue.job_class,
    )


def enqueue(queue: Queue, match_id: int, job_id: str, at_front: bool = False) -> None:
    enqueue_all(queue, [(match_id, job_id)], at_front)


def enqueue_all(queue: Queue, jobs: list[tuple[int, str]], at_front: bool = False) -> None:
    """Send ``(match id, job id)`` pairs; matches sharing a job id go in one job.

    ``at_front`` for matches that come back after a failure: they have waited already,
    and a match whose worker died plays again within the recovery bound only if it does
    not wait behind a tournament's whole queue. Either way the jobs leave the queue in
    the order given (each push to the front goes before the last one: they are pushed
    last first)."""
    batches: dict[str, list[int]] = {}
    for match_id, job_id in jobs:
        batches.setdefault(job_id, []).append(match_id)
    ordered = list(batches.items())
    with queue.connection.pipeline() as pipe:
        for job_id, match_ids in reversed(ordered) if at_front else ordered:
            lane_of(queue, job_id).enqueue(
                JOB_FUNCTION,
                match_ids,
                job_id=job_id,
                job_timeout=JOB_TIMEOUT * len(match_ids),
                result_ttl=600,
                failure_ttl=FAILURE_TTL,
                description=f"matches {', '.join(map(str, match_ids))}",
                at_front=at_front,
                pipeline=pipe,
            )
        pipe.execute()


def enqueue_qualification(queue: Queue, version_id: int) -> None:
    """Queue the qualification match of a pending bot version."""
    queue.enqueue(
        QUALIFY_FUNCTION,
        version_id,
        job_id=f"arena-qualify-{version_id}",
        job_timeout=JOB_TIMEOUT,
        # a platform failure (no sandbox came up) leaves the version pending: played again
        retry=Retry(max=QUALIFY_ATTEMPTS - 1),
        result_ttl=600,
        failure_ttl=FAILURE_TTL,
        description=f"qualification of bot version {version_id}",
    )


def workers_listening(queue: Queue) -> int:
    """How many workers are registered on the queue now."""
    return Worker.count(queue=queue)


#: how RQ writes times in a job's hash
_RQ_TIME = "%Y-%m-%dT%H:%M:%S.%fZ"
#: a job in one of these states will run later
_LATER = {JobStatus.DEFERRED.value, JobStatus.SCHEDULED.value}


class JobWatch:
    """Whether a job will still play its matches, as seen from Redis (the reconciler asks
    only about matches the database has kept queued for a while).

    A job that is gone or ended (failed, finished, stopped) will not. Neither will one
    that started :data:`STRANDED_SECONDS` ago while its matches are still queued (a
    started job claims them at once: its worker died or hangs before the claim), nor a
    ``queued`` one seen off its queue for :data:`TAKEN_SECONDS` (its worker died between
    taking and starting it: a worker reading one lane keeps it in RQ's intermediate list
    meanwhile, one reading both lanes pops it into no list at all); RQ would release
    the first only after its timeout, and the second never."""

    def __init__(
        self,
        queue: Queue,
        stranded_after: float = STRANDED_SECONDS,
        taken_after: float = TAKEN_SECONDS,
    ) -> None:
        self.queue = queue
        self.stranded_after, self.taken_after = stranded_after, taken_after
        #: job id -> when it was first seen taken off the queue and not started
        self._taken: dict[str, float] = {}

    def pending(self, job_id: str) -> bool:
        connection = self.queue.connection
        queue = lane_of(self.queue, job_id)
        status, started_at = connection.hmget(Job.key_for(job_id), "status", "started_at")
        if status is None:
            return False
        state = _text(status)
        if state != JobStatus.QUEUED.value:
            self._taken.pop(job_id, None)
        if state == JobStatus.STARTED.value:
            return not self._stranded(started_at)
        if state == JobStatus.QUEUED.value:
            return not self._taken_and_dropped(queue, job_id)
        return state in _LATER

    def _stranded(self, started_at: bytes | str | None) -> bool:
        if started_at is None:
            return False
        try:
            began = datetime.strptime(_text(started_at), _RQ_TIME).replace(tzinfo=UTC)
        except ValueError:
            return False
        return (datetime.now(UTC) - began).total_seconds() > self.stranded_after

    def _taken_and_dropped(self, queue: Queue, job_id: str) -> bool:
        if queue.connection.lpos(queue.key, job_id) is not None:  # waiting its turn
            self._taken.pop(job_id, None)
            return False
        first = self._taken.setdefault(job_id, time.monotonic())
        if time.monotonic() - first <= self.taken_after:
            return False
        del self._taken[job_id]  # its matches go out under a new job: never asked again
        return True


def job_pending(queue: Queue, job_id: str) -> bool:
    """Whether the job will still play its matches (one look: see :class:`JobWatch`)."""
    return JobWatch(queue).pending(job_id)


def _text(value: bytes | str) -> str:
    """A Redis reply as text (a client may decode replies itself)."""
    return value.decode() if isinstance(value, bytes) else value
