"""How long commands take to start, as a user meets them: the installed ``arena``
command run as a new process each time (no warm interpreter, no import cache but the
files' own).

- ``arena --help``: to its exit;
- ``arena play sample:random sample:random --games 1``: to its exit, the first (and
  only) match played;
- ``arena worker``: from its start to its registration on the queue (a private Redis
  and a SQLite database already migrated: a worker that restarts).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: the medians a user should see on a 2-core machine, in seconds
TARGETS = {"help_s": 0.3, "play_s": 0.8, "worker_s": 0.5}


def arena_command() -> list[str]:
    """The installed ``arena`` script beside this interpreter (else ``python -m arena``)."""
    script = Path(sys.executable).with_name("arena")
    found = str(script) if script.exists() else shutil.which("arena")
    return [found] if found else [sys.executable, "-m", "arena"]


def _timed_run(command: list[str], env: dict[str, str] | None = None) -> float:
    began = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - began


def _worker_start(command: list[str], env: dict[str, str], redis_url: str) -> float:
    """Seconds from spawning a worker to its registration on the queue."""
    from arena.platform import queue as work_queue

    connection = work_queue.connect(redis_url)
    connection.delete("rq:workers")
    began = time.perf_counter()
    process = subprocess.Popen(
        [*command, "worker"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        while not connection.scard("rq:workers"):
            if process.poll() is not None:
                raise RuntimeError(f"the worker exited with {process.returncode}")
            time.sleep(0.002)
        return time.perf_counter() - began
    finally:
        process.kill()
        process.wait()


def run(repeats: int = 10, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    from arena.platform import Platform
    from arena.platform.redis_server import RedisServer
    from arena.platform.services import environment
    from arena.platform.settings import Settings

    command = arena_command()
    samples: dict[str, list[float]] = {"help_s": [], "play_s": [], "worker_s": []}
    with (
        tempfile.TemporaryDirectory(prefix="arena-bench-startup-") as tmp,
        RedisServer(Path(tmp) / "redis") as redis,
    ):
        settings = Settings(Path(tmp), f"sqlite:///{tmp}/arena.db", redis.url)
        Platform(settings)  # migrated once, as for a worker that restarts
        env = environment(settings)
        plain = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
        for round_ in range(repeats):
            if progress:
                progress(f"round {round_ + 1} of {repeats}")
            samples["help_s"].append(_timed_run([*command, "--help"], plain))
            samples["play_s"].append(
                _timed_run([*command, "play", "sample:random", "sample:random", "--games", "1"])
            )
            samples["worker_s"].append(_worker_start(command, env, redis.url))
    medians = {key: round(statistics.median(values), 3) for key, values in samples.items()}
    return {
        **medians,
        "repeats": repeats,
        "samples": {k: [round(v, 3) for v in vs] for k, vs in samples.items()},
        "targets": TARGETS,
        "met": {key: medians[key] <= TARGETS[key] for key in TARGETS},
    }
