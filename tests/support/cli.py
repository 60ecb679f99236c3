"""Running ``arena`` commands as a user does: a subprocess with its own environment."""

from __future__ import annotations

import os
import subprocess
import sys
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
