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


def new_job_id(match_id: int) -> str:
    return f"arena-match-{match_id}-{uuid.uuid4().hex[:8]}"
