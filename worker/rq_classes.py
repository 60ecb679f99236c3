"""The worker's side of the queue: RQ's worker and job classes, locked to the
platform's own two jobs (arena.platform.queue makes them). A job that calls anything
else, carries callbacks, webhooks or dependencies, or whose arguments are not ids is
refused and deleted: never imported nor called."""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from rq import Queue, SimpleWorker, worker_registration
from rq.job import Job
from rq.serializers import JSONSerializer
from rq.worker import BaseWorker

from arena.platform.queue import JOB_FUNCTION, MAX_JOB_MATCHES, QUALIFY_FUNCTION, QUEUE_NAME

#: what a worker reads, written beside its registration (``arena_lanes``)
ALL_LANES, RANKED_ONLY = "all", "ranked only: its private share is in play"
#: how often a burst worker whose private share is in play looks for room or a ranked job
PRIVATE_LOOK_SECONDS = 0.02
#: the least time between two private jobs a worker takes (it reads the ranked lane
#: alone meanwhile)
PRIVATE_JOB_GAP_SECONDS = 0.5

log = logging.getLogger(__name__)

#: what a worker's registration says of its sandbox until it has probed it
UNPREPARED = "checking"
#: a worker's state (beside RQ's idle, busy, ...) while it loads what playing needs
PREPARING = "preparing"


class ForeignJob(RuntimeError):
    """A job the platform did not make: refused, never run."""


class MatchJob(Job):
    """A job that can only ever call :data:`JOB_FUNCTION`: a foreign job's function,
    callbacks and webhooks are never imported nor called, whatever path of RQ asks."""

    @property
    def func(self) -> Any:
        reason = refusal(self)
        if reason is not None:
            raise ForeignJob(reason)
        from worker import jobs

        return jobs.play_matches if self.func_name == JOB_FUNCTION else jobs.qualify_version

    @property
    def success_callback(self) -> None:
        return None

    @property
    def failure_callback(self) -> None:
        return None

    @property
    def stopped_callback(self) -> None:
        return None

    def send_webhooks(self, *args: object, **kwargs: object) -> None:
        return None


def refusal(job: Job) -> str | None:
    """Why ``job`` is not one of the platform's match jobs, or None when it is."""
    try:
        func_name, instance, args, kwargs = job.func_name, job.instance, job.args, job.kwargs
    except Exception as error:  # not JSON, or not the shape of a job
        return f"its data cannot be read as a JSON job ({type(error).__name__})"
    if func_name not in (JOB_FUNCTION, QUALIFY_FUNCTION) or instance is not None:
        return f"it calls {func_name!r}, not {JOB_FUNCTION} or {QUALIFY_FUNCTION}"
    extras = [
        name
        for name, value in (
            ("a success callback", job._success_callback_name),
            ("a failure callback", job._failure_callback_name),
            ("a stopped callback", job._stopped_callback_name),
            ("webhooks", job.webhooks),
            ("dependencies", job._dependency_ids),
        )
        if value
    ]
    if extras:
        return f"it carries {', '.join(extras)}"
    if func_name == QUALIFY_FUNCTION:
        if kwargs or len(args) != 1 or type(args[0]) is not int or args[0] <= 0:
            return "its arguments are not one bot version id"
        return None
    if kwargs or len(args) != 1 or not _match_ids(args[0]):
        return "its arguments are not one list of match ids"
    return None


def _match_ids(value: object) -> bool:
    return (
        isinstance(value, list)
        and 0 < len(value) <= MAX_JOB_MATCHES
        and all(type(item) is int and item > 0 for item in value)
    )


class MatchWorker(SimpleWorker):
    """An RQ worker that runs match jobs in its own process and refuses anything else.

    ``sandbox`` (how this worker runs uploaded bots) is written beside the worker's
    registration for the workers page. ``prepare(worker)``, if given, runs in a thread
    once the worker is registered (it may probe the sandbox and call
    :meth:`set_sandbox`); the worker takes no job until it is done: a worker started
    after another died would take the front of the queue (the dead one's matches, queued
    again) and hold it while it loads, and the live workers would play past them."""

    #: while Redis is away an idle worker retries every second (RQ doubles its wait up
    #: to a minute, and keeps the doubled wait for the next outage)
    exponential_backoff_factor = 1.0
    max_connection_wait_time = 1.0

    def __init__(
        self,
        *args: Any,
        sandbox: str | None = None,
        prepare: Callable[[MatchWorker], None] | None = None,
        private_full: Callable[[], bool] | None = None,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("serializer", JSONSerializer)
        kwargs.setdefault("job_class", MatchJob)
        super().__init__(*args, **kwargs)
        self.sandbox = sandbox
        #: whether the worker's private share is in play (its queues after the first, the
        #: private lane, are then not read: it takes ranked jobs only)
        self._private_full = private_full or (lambda: False)
        self._lanes_said: str | None = None
        #: no private job before this moment (time.monotonic)
        self._private_after = 0.0
        self._prepare = prepare
        self._prepared = threading.Event()
        if prepare is None:
            self._prepared.set()

    def register_birth(self) -> None:
        super().register_birth()
        self.connection.hset(self.key, "arena_sandbox", self.sandbox or UNPREPARED)
        if self._prepare is not None:
            threading.Thread(target=self._run_prepare, daemon=True, name="arena-prepare").start()

    def _run_prepare(self) -> None:
        try:
            assert self._prepare is not None
            self._prepare(self)
        except Exception:
            log.exception("worker %s: preparing to play failed", self.name)
        finally:
            self._prepared.set()

    def unsubscribe(self) -> None:
        """As RQ's, in an order that cannot wait: redis-py's listening thread is told to
        stop before the channel is left (the reply wakes it), then joined for a second at
        most. In RQ's order (leave, then stop) a thread that read the reply before it was
        told to stop waits up to a minute for a subscription that never comes, and
        redis-py 8's ``stop`` joins it: a worker took that minute to stop, now and then."""
        thread = self.pubsub_thread
        if thread is None:
            return
        thread.stop(timeout=0)
        with contextlib.suppress(Exception):  # Redis may be gone: the thread is told anyway
            self.pubsub.unsubscribe()
        thread.join(timeout=1)
        self.pubsub.close()

    def set_sandbox(self, description: str) -> None:
        """Say how this worker runs uploaded bots, beside its registration."""
        self.sandbox = description
        with contextlib.suppress(Exception):
            self.connection.hset(self.key, "arena_sandbox", description)

    def heartbeat(self, timeout: int | None = None, pipeline: Any = None) -> None:
        """As RQ's, and register again when Redis lost the registration (a restart that
        came back empty): the workers page and job sizing count registered workers."""
        super().heartbeat(timeout, pipeline)
        with contextlib.suppress(OSError):  # the host's load, for arena status
            (pipeline or self.connection).hset(self.key, "arena_load", f"{os.getloadavg()[0]:.2f}")
        if pipeline is None and not self.connection.sismember(self.redis_workers_keys, self.key):
            log.warning("worker %s: its registration was lost; registering again", self.name)
            with self.connection.pipeline() as pipe:
                pipe.hset(self.key, mapping=self.serialize())
                pipe.hset(self.key, "arena_sandbox", self.sandbox or UNPREPARED)
                worker_registration.register(self, pipe)
                pipe.expire(self.key, self.worker_ttl + 60)
                pipe.execute()

    def execute_job(self, job: Job, queue: Queue) -> None:
        reason = refusal(job)
        if reason is not None:
            self._refuse(job.id, queue, reason)
            return
        super().execute_job(job, queue)

    def dequeue_job_and_maintain_ttl(
        self, timeout: int | None, max_idle_time: int | None = None
    ) -> tuple[Job, Queue] | None:
        """As RQ's once the worker is prepared (None if told to stop before), but a job
        that cannot even be loaded is refused, not fatal."""
        if not self._wait_until_prepared():
            return None
        while True:
            try:
                return self._dequeue_in_lanes(timeout, max_idle_time)
            except Exception as error:
                job_id, queue = getattr(error, "job_id", None), getattr(error, "queue", None)
                if job_id is None or queue is None:
                    raise
                self._refuse(job_id, queue, f"it cannot be loaded ({type(error).__name__})")

    def _dequeue_in_lanes(
        self, timeout: int | None, max_idle_time: int | None = None
    ) -> tuple[Job, Queue] | None:
        """The next job, from the ranked lane alone while the private share is in play
        (looked at again each second, or at once in a burst): a private job is never
        taken only to be handed back. Between two private jobs the worker reads the
        ranked lane alone for :data:`PRIVATE_JOB_GAP_SECONDS`: a private job costs the
        worker's one thread a few milliseconds of claims and writes, and a competition
        whose next table is queued a moment after its last one is recorded (its lane
        empty in between) once lost half its pace to A/B tests' pairs taken in those
        moments (``arena bench lanes``)."""
        while True:
            if len(self.queues) == 1 or (
                not self._private_full() and time.monotonic() >= self._private_after
            ):
                self._say_lanes(ALL_LANES)
                self._ordered_queues = list(self.queues)
                found = super().dequeue_job_and_maintain_ttl(timeout, max_idle_time)
                if found is not None and found[1].name != self.queues[0].name:
                    self._private_after = time.monotonic() + PRIVATE_JOB_GAP_SECONDS
                return found
            full = self._private_full()
            if full:
                self._say_lanes(RANKED_ONLY)
            self._ordered_queues = self.queues[:1]
            gap = 1.0 if full else max(0.05, self._private_after - time.monotonic())
            wait = None if timeout is None else gap
            found = super().dequeue_job_and_maintain_ttl(wait, wait)  # type: ignore[arg-type]
            if found is not None:
                return found
            if timeout is None:  # a burst: wait for room, not for the lane to fill
                time.sleep(PRIVATE_LOOK_SECONDS if full else gap)

    def _say_lanes(self, lanes: str) -> None:
        """Write which lanes the worker reads beside its registration (on a change)."""
        if lanes != self._lanes_said:
            self.connection.hset(self.key, "arena_lanes", lanes)
            self._lanes_said = lanes

    def _wait_until_prepared(self) -> bool:
        """Wait, registered and heartbeating, until the worker can play and Redis answers
        (a heartbeat registers it again if Redis came back empty meanwhile); False if it
        was told to stop."""
        if self._prepared.is_set():
            return True
        self.set_state(PREPARING)
        while not self._stop_requested:
            prepared = self._prepared.wait(1.0)
            try:
                self.heartbeat()
            except (RedisConnectionError, RedisTimeoutError) as error:
                log.warning("worker %s: Redis is away while it prepares: %s", self.name, error)
                continue
            if prepared:
                return True
        return False

    def _refuse(self, job_id: str, queue: Queue, reason: str) -> None:
        log.error(
            "refused job %s on %s: %s; it was deleted, nothing ran", job_id, queue.name, reason
        )
        with self.connection.pipeline() as pipe:
            pipe.lrem(queue.intermediate_queue_key, 0, job_id)
            pipe.delete(Job.key_for(job_id))
            pipe.execute()


def load_of(worker: BaseWorker) -> float | None:
    """The load average of a registered worker's host at its last heartbeat."""
    value = worker.connection.hget(worker.key, "arena_load")
    return float(value) if value else None


def sandbox_of(worker: BaseWorker) -> str:
    """How a registered worker runs uploaded bots (as it wrote at birth)."""
    value = worker.connection.hget(worker.key, "arena_sandbox")
    if not value:
        return "unknown"
    return value.decode() if isinstance(value, bytes) else value


def locked_queue(connection: Any, name: str = QUEUE_NAME) -> Queue:
    """The match queue as a worker reads it: every job loaded is a :class:`MatchJob`."""
    return Queue(name, connection=connection, serializer=JSONSerializer, job_class=MatchJob)
