"""The Redis side: one RQ queue of matches. A job carries only match ids (one, or a few
when a tournament starts: see ``tournaments.job_sizes``); the database holds
everything else."""

from __future__ import annotations

from redis import Redis
from rq import Queue, Worker
from rq.job import Job, JobStatus

QUEUE_NAME = "arena-matches"
#: RQ kills a job that runs longer than this per match (a match's own deadlines end it
#: far sooner). Finished jobs are kept 10 minutes for ``rq info``; the database holds
#: the results.
JOB_TIMEOUT = 3600


def connect(url: str) -> Redis:
    return Redis.from_url(
        url, socket_connect_timeout=5, socket_timeout=30, health_check_interval=30
    )


def match_queue(connection: Redis) -> Queue:
    return Queue(QUEUE_NAME, connection=connection)


def enqueue(queue: Queue, match_id: int, job_id: str) -> None:
    enqueue_all(queue, [(match_id, job_id)])


def enqueue_all(queue: Queue, jobs: list[tuple[int, str]]) -> None:
    """Send ``(match id, job id)`` pairs; matches sharing a job id go in one job."""
    batches: dict[str, list[int]] = {}
    for match_id, job_id in jobs:
        batches.setdefault(job_id, []).append(match_id)
    with queue.connection.pipeline() as pipe:
        for job_id, match_ids in batches.items():
            queue.enqueue(
                "worker.jobs.play_matches",
                match_ids,
                job_id=job_id,
                job_timeout=JOB_TIMEOUT * len(match_ids),
                result_ttl=600,
                failure_ttl=7 * 24 * 3600,
                description=f"matches {', '.join(map(str, match_ids))}",
                pipeline=pipe,
            )
        pipe.execute()


def workers_listening(queue: Queue) -> int:
    """How many workers are registered on the queue now."""
    return Worker.count(queue=queue)


#: a job in one of these states will still run (or is running) its matches
_PENDING = {
    status.value
    for status in (JobStatus.QUEUED, JobStatus.STARTED, JobStatus.DEFERRED, JobStatus.SCHEDULED)
}


def job_pending(queue: Queue, job_id: str) -> bool:
    """Whether the job will still play its matches. A job that is gone, or ended (failed
    or finished: for example RQ gave up on it after its worker died between taking it and
    claiming its matches), will not."""
    status = queue.connection.hget(Job.key_for(job_id), "status")
    return status is not None and status.decode() in _PENDING
