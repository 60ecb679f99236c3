"""Running ``arena`` commands as a user does: a subprocess with its own environment."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from arena.platform import Platform, children
from arena.platform.settings import Settings

ROOT = Path(__file__).resolve().parents[2]


def arena(
    *args: str, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` run from the checkout (with ``env``, else this process's)."""
    return children.run(
        [sys.executable, "-m", "arena", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def environment(settings: Settings) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env.update(
        ARENA_DATA_DIR=str(settings.data_dir),
        ARENA_DATABASE_URL=settings.database_url,
        ARENA_QUEUE=settings.queue_name,
    )
    if settings.redis_url:
        env["REDIS_URL"] = settings.redis_url
    return env


def run_queued_jobs(platform: Platform) -> None:
    """A worker plays what is queued (qualification matches, tournaments) and stops."""
    worker = arena("worker", "--burst", env=environment(platform.settings))
    assert worker.returncode == 0, worker.stderr[-2000:]


def play_served_bot(command: list[str], cwd: Path, opponents: list[str], games: int) -> dict:
    """Start a bot server (``command`` prints ``listening on ADDRESS``), play ``games``
    games of ``arena play`` against ``opponents``, stop it; the bot's row of the report."""
    import json
    import re

    bot = children.spawn(
        command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    try:
        line = bot.stdout.readline() if bot.stdout else ""
        address = re.fullmatch(r"listening on (\S+)\n", line)
        assert address, f"the bot did not start: {line!r}"
        played = arena("play", address.group(1), *opponents, "--games", str(games), "--json")
    finally:
        bot.terminate()
        bot.wait(10)
    assert played.returncode == 0, played.stdout + played.stderr
    return next(row for row in json.loads(played.stdout)["bots"] if row["bot"] == address.group(1))


@contextmanager
def platform_up(data_dir: Path, workers: int = 2, games: int = 4) -> Iterator[dict[str, str]]:
    """``arena up`` on ``data_dir`` (a private Redis, SQLite), as a user runs it; the
    environment its commands take (only ``ARENA_DATA_DIR``: they find it themselves).
    Stopped with Ctrl-C when the block ends, however it ends."""
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "ARENA_DATABASE_URL")}
    env["ARENA_DATA_DIR"] = str(data_dir)
    process = children.spawn(
        [sys.executable, "-m", "arena", "up", "--games", str(games), "--workers",
         str(workers), "--port", "0"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 300  # a hang, not a slow machine: it takes seconds
        while not (data_dir / "running.json").exists():  # it says where it runs once up
            assert process.poll() is None, f"arena up exited with {process.returncode}"
            assert time.monotonic() < deadline, "arena up did not come up"
            time.sleep(0.2)
        yield env
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            process.kill()
