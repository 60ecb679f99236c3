"""What the workers page shows: queue lengths, live workers, failed jobs with reasons."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from rq import Worker
from rq.registry import FailedJobRegistry, StartedJobRegistry

from arena.base.jobs import MAX_BATCH
from arena.platform import Platform, PlatformError
from worker.rq_classes import load_of, sandbox_of


def info(platform: Platform, failed_limit: int = 50) -> dict[str, Any]:
    try:
        queue = platform.queue
        workers = Worker.all(connection=queue.connection)
        failed = FailedJobRegistry(queue=queue)
        failed_jobs = []
        for job in queue.job_class.fetch_many(
            failed.get_job_ids(0, failed_limit - 1),
            connection=queue.connection,
            serializer=queue.serializer,
        ):
            if job is not None:
                result = job.latest_result()
                reason = (result.exc_string if result is not None else "") or ""
                failed_jobs.append(
                    {
                        "id": job.id,
                        "description": job.description,
                        "reason": reason.strip().splitlines()[-1:] or [""],
                    }
                )
        return {
            "available": True,
            "max_batch": MAX_BATCH,
            "queued": queue.count,
            "running": StartedJobRegistry(queue=queue).count,
            "failed": failed.count,
            "workers": [
                {
                    "name": w.name,
                    "state": w.get_state(),
                    "host": w.hostname,
                    "pid": w.pid,
                    "done": w.successful_job_count,
                    "failed": w.failed_job_count,
                    "sandbox": sandbox_of(w),
                    "load": load_of(w),
                    "heartbeat_age_s": _age(w.last_heartbeat),
                }
                for w in workers
            ],
            "failed_jobs": failed_jobs,
        }
    except (PlatformError, OSError, ConnectionError) as error:
        return {"available": False, "error": str(error)}
    except Exception as error:  # Redis down: the page says so instead of failing
        return {"available": False, "error": f"{type(error).__name__}: {error}"}


def _age(moment: Any) -> float | None:
    """Seconds since ``moment`` (a naive or aware UTC time), or None."""
    if moment is None:
        return None
    current = datetime.now(UTC)
    if moment.tzinfo is None and current.tzinfo is not None:
        current = current.replace(tzinfo=None)
    return round((current - moment).total_seconds(), 1)
