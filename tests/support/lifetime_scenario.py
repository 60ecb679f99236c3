"""Run by tests/test_lifetime.py in a pytest of its own, which it then kills with
``kill -9``: this test starts what tests start (a private Redis, workers, a local bot,
a whole ``arena up``), says so in the file ``ARENA_LIFETIME_READY`` names, and waits to
be killed. It is not collected by the suite (its name does not start with ``test_``)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from arena.platform import children
from arena.platform.launcher import BotProcesses, BotSpec, SpecKind, command_for
from arena.platform.redis_server import RedisServer, free_port
from arena.platform.services import Workers, environment
from arena.platform.settings import RUNNING_FILE, Settings
from tests.support.forks import session_forks


def _wait_for(path: Path, what: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{what} did not start"
        time.sleep(0.05)


def test_start_everything_and_wait_to_be_killed(tmp_path: Path) -> None:
    ready = Path(os.environ["ARENA_LIFETIME_READY"])
    with RedisServer(tmp_path / "redis") as redis:
        settings = Settings(tmp_path, f"sqlite:///{tmp_path / 'arena.db'}", redis.url)
        up_data = tmp_path / "up"
        up_env = {**environment(Settings(up_data, f"sqlite:///{up_data / 'arena.db'}", None))}
        up_env.pop("REDIS_URL")
        up = children.spawn(
            [sys.executable, "-m", "arena", "up", "--workers", "1", "--port", str(free_port())],
            env=up_env,
            stdout=open(tmp_path / "up.log", "wb"),  # noqa: SIM115 - the child keeps it
            stderr=open(tmp_path / "up.err", "wb"),  # noqa: SIM115
        )
        with Workers(settings, 2, tmp_path / "logs", forks=session_forks()), BotProcesses() as bots:
            bots.start(command_for(BotSpec(SpecKind.SAMPLE, "random")), "random")
            _wait_for(up_data / RUNNING_FILE, "arena up")
            ready.write_text(str(up.pid))
            time.sleep(3600)  # killed long before
