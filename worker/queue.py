"""The Redis side: one RQ queue of matches. Jobs carry only a match id; the database
holds everything else."""

from __future__ import annotations

from redis import Redis
from rq import Queue
from rq.job import Job

QUEUE_NAME = "arena-matches"
#: RQ kills a job that runs longer than this (a match's own deadlines end it far sooner).
#: Finished jobs are dropped at once (result_ttl=600): the database holds the results.
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
    with queue.connection.pipeline() as pipe:
        for match_id, job_id in jobs:
            queue.enqueue(
                "worker.jobs.play_match",
                match_id,
                job_id=job_id,
                job_timeout=JOB_TIMEOUT,
                result_ttl=600,
                failure_ttl=7 * 24 * 3600,
                description=f"match {match_id}",
                pipeline=pipe,
            )
        pipe.execute()


def job_exists(queue: Queue, job_id: str) -> bool:
    return Job.exists(job_id, connection=queue.connection)
