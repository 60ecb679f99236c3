"""Running the platform's processes on one machine: workers and the dashboard as
subprocesses, new interpreters or forked warm from a :class:`ForkServer`."""

from __future__ import annotations

import contextlib
import http.client
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from arena.platform.children import Child, spawn
from arena.platform.forkserver import ForkServer
from arena.platform.settings import Settings


def environment(settings: Settings) -> dict[str, str]:
    """The environment a worker needs: where the database and Redis are, and how many
    attempts a match has."""
    return {
        **os.environ,
        "ARENA_DATA_DIR": str(settings.data_dir),
        "ARENA_DATABASE_URL": settings.database_url,
        "REDIS_URL": settings.redis_url or "",
        "ARENA_QUEUE": settings.queue_name,
        "ARENA_MATCH_ATTEMPTS": str(settings.match_attempts),
    }


def start_arena(
    args: list[str], settings: Settings, forks: ForkServer | None, **options: Any
) -> Child:
    """``arena ARGS`` in its own session with the environment of ``settings``: forked
    from ``forks`` where it serves that environment, else a new interpreter."""
    env = environment(settings)
    if forks is not None:
        return forks.spawn("arena", args, env=env, start_new_session=True, **options)
    return spawn([sys.executable, "-m", "arena", *args], env=env, start_new_session=True, **options)


class Workers:
    """``count`` ``arena worker`` processes (forked from ``forks`` if given); stopped
    (and their groups) on exit."""

    def __init__(
        self,
        settings: Settings,
        count: int,
        log_dir: Path,
        burst: bool = False,
        forks: ForkServer | None = None,
    ) -> None:
        self.settings, self.count, self.log_dir, self.burst = settings, count, log_dir, burst
        self.forks = forks
        self.processes: list[Child] = []

    def start(self) -> Workers:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        for index in range(self.count):
            self.add(index)
        return self

    def add(self, index: int) -> Child:
        args = ["worker"] + (["--burst"] if self.burst else [])
        with open(self.log_dir / f"worker-{index}.log", "ab") as log:
            process = start_arena(
                args, self.settings, self.forks, stdout=log, stderr=subprocess.STDOUT
            )
        self.processes.append(process)
        return process

    def stop(self, grace: float = 10.0) -> None:
        """SIGTERM (rq finishes the current match), then SIGKILL after ``grace`` seconds."""
        for process in self.processes:
            _signal(process, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                _signal(process, signal.SIGKILL)
                process.wait()
        self.processes.clear()

    def __enter__(self) -> Workers:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _signal(process: Child, signum: int) -> None:
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signum)


class Dashboard:
    """``arena dashboard`` as a subprocess on ``port`` (forked from ``forks`` if given)."""

    def __init__(
        self, settings: Settings, port: int, log_dir: Path, forks: ForkServer | None = None
    ) -> None:
        self.settings, self.port, self.log_dir, self.forks = settings, port, log_dir, forks
        self.process: Child | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def __enter__(self) -> Dashboard:
        """Bind the port here and hand the listening socket to the dashboard: a port
        taken meanwhile by another program is an error now, never a server that answers
        for someone else (port 0: any free port, ``url`` says which)."""
        self.log_dir.mkdir(parents=True, exist_ok=True)
        listening = socket.socket()
        try:
            listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listening.bind(("127.0.0.1", self.port))
        except OSError as error:
            listening.close()
            raise RuntimeError(
                f"the dashboard cannot listen on port {self.port}: {error}"
            ) from None
        listening.listen(128)
        self.port = listening.getsockname()[1]
        with listening, open(self.log_dir / "dashboard.log", "ab") as log:
            self.process = start_arena(
                ["dashboard", "--port", str(self.port), "--fd", str(listening.fileno())],
                self.settings,
                self.forks,
                stdout=log,
                stderr=subprocess.STDOUT,
                pass_fds=(listening.fileno(),),
            )
            try:
                self._wait_ready()
            except BaseException:
                self.__exit__()
                raise
        return self

    def _wait_ready(self, timeout: float = 30.0) -> None:
        """Return once the dashboard answers HTTP (so its URL works when printed)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(f"the dashboard exited: see {self.log_dir / 'dashboard.log'}")
            try:
                with urllib.request.urlopen(f"{self.url}static/favicon.svg", timeout=2):
                    return
            except (OSError, http.client.HTTPException):
                time.sleep(0.1)
        raise RuntimeError(f"the dashboard did not start on port {self.port}")

    def __exit__(self, *exc: object) -> None:
        if self.process is not None:
            _signal(self.process, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                _signal(self.process, signal.SIGKILL)
                self.process.wait()
