"""Queue jobs as the database sees them: how many matches each job carries, and a job's
id (its matches share it; arena.platform.queue sends the job to Redis)."""

from __future__ import annotations

import uuid

MAX_BATCH = 16


def job_sizes(matches: int, workers: int) -> list[int]:
    """How many matches each queue job carries, in queue order ("guided" scheduling).

    A job carries up to ``MAX_BATCH`` matches (RQ costs milliseconds per job), and a
    job never holds more than a ``2 * workers``-th of what is left: the jobs shrink
    towards the end of the queue, down to single matches, so no worker is still
    playing a long job while the others have nothing left."""
    share = 2 * max(1, workers)
    sizes, remaining = [], matches
    while remaining:
        sizes.append(max(1, min(MAX_BATCH, remaining // share)))
        remaining -= sizes[-1]
    return sizes


#: a job of an owner's private tournament: it goes in the private lane, which workers
#: take from only when the ranked lane (competitions, qualification, A/B tests) is empty
PRIVATE_JOB = "arena-private-"
RANKED_JOB = "arena-match-"


def new_job_id(match_id: int, private: bool = False) -> str:
    return f"{PRIVATE_JOB if private else RANKED_JOB}{match_id}-{uuid.uuid4().hex[:8]}"


def is_private(job_id: str | None) -> bool:
    """Whether a job belongs to the private lane (a match keeps its lane when it is
    queued again: its new job id is made from its old one)."""
    return bool(job_id) and job_id.startswith(PRIVATE_JOB)  # type: ignore[union-attr]


def renewed(match_id: int, old_job_id: str | None) -> str:
    """A new job id for a match queued again, in the lane of its old one."""
    return new_job_id(match_id, private=is_private(old_job_id))
