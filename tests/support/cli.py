"""Running ``arena`` commands as a user does: a subprocess with its own environment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from arena.platform import Platform
from arena.platform.settings import Settings

ROOT = Path(__file__).resolve().parents[2]


def arena(
    *args: str, env: dict[str, str], timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def environment(settings: Settings) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env.update(ARENA_DATA_DIR=str(settings.data_dir), ARENA_DATABASE_URL=settings.database_url)
    if settings.redis_url:
        env["REDIS_URL"] = settings.redis_url
    return env


def run_queued_jobs(platform: Platform) -> None:
    """A worker plays what is queued (qualification matches, tournaments) and stops."""
    worker = arena("worker", "--burst", env=environment(platform.settings))
    assert worker.returncode == 0, worker.stderr[-2000:]
