"""Running ``arena`` commands as a user does: with its own environment, its output and its
exit status. Commands whose subject is not the process (creating, listing, submitting,
following) run in the test's process, as ``arena`` would run them (the same entry point
and error path), which spares each the two seconds a new interpreter's imports take;
those that hold a process (``up``, ``worker``, ``dashboard``, ``play``, ``bench``) run as
a subprocess, within ``timeout``, forked from the test process's fork server
(:mod:`tests.support.forks`)."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

from arena.platform import Platform, children
from arena.platform.children import Child
from arena.platform.settings import Settings
from tests.support.forks import session_forks

ROOT = Path(__file__).resolve().parents[2]


#: commands that run as their own process (they serve, play or measure)
PROCESS_COMMANDS = frozenset({"up", "worker", "dashboard", "play", "bench"})


def arena(
    *args: str, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` run from the checkout (with ``env``, else this process's)."""
    if not args or args[0] in PROCESS_COMMANDS:
        return _as_process(list(args), dict(os.environ if env is None else env), timeout)
    return _in_process(list(args), env)


def _as_process(
    args: list[str], env: dict[str, str], timeout: float
) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` as a process of its own: its output and status, as ``subprocess.run``
    with ``capture_output`` gives them (killed after ``timeout``: TimeoutExpired)."""
    with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
        process = start(args, env, stdout=stdout, stderr=stderr)
        try:
            code = process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGKILL)
            process.wait()
            raise
        stdout.seek(0)
        stderr.seek(0)
        out, err = (stream.read().decode(errors="replace") for stream in (stdout, stderr))
    return subprocess.CompletedProcess([sys.executable, "-m", "arena", *args], code, out, err)


def start(args: list[str], env: dict[str, str], **streams: Any) -> Child:
    """``arena ARGS`` started from the checkout: forked from the test process's fork
    server, else (off the main thread) a new interpreter."""
    forks = session_forks()
    if forks is not None:
        return forks.spawn("arena", args, env=env, cwd=ROOT, **streams)
    return children.spawn([sys.executable, "-m", "arena", *args], cwd=ROOT, env=env, **streams)


def _in_process(args: list[str], env: dict[str, str] | None) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` through the command's own entry point in this process: its
    environment exactly ``env`` meanwhile, its output captured, its exit status kept."""
    from arena.command import main

    stdout, stderr = io.StringIO(), io.StringIO()
    saved_environ, saved_argv, saved_cwd = dict(os.environ), sys.argv, os.getcwd()
    if env is not None:
        os.environ.clear()
        os.environ.update(env)
    sys.argv = ["arena", *args]
    os.chdir(ROOT)
    try:
        with redirect_stdout(stdout), redirect_stderr(stderr):
            try:
                main()
                code = 0
            except SystemExit as ended:
                code = _exit_status(ended.code, stderr)
            except Exception:  # what the interpreter would print before exiting 1
                traceback.print_exc(file=stderr)
                code = 1
    finally:
        os.environ.clear()
        os.environ.update(saved_environ)
        sys.argv = saved_argv
        os.chdir(saved_cwd)
    return subprocess.CompletedProcess(
        [sys.executable, "-m", "arena", *args], code, stdout.getvalue(), stderr.getvalue()
    )


def _exit_status(code: object, stderr: io.StringIO) -> int:
    """What ``sys.exit(code)`` leaves as the process's status (a message: printed, 1)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=stderr)
    return 1


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


def run_queued_jobs(platform: Platform) -> str:
    """A worker plays what is queued (qualification matches, tournaments) and stops;
    the end of its log (for a test's message when what it left is not as expected)."""
    worker = arena("worker", "--burst", env=environment(platform.settings))
    assert worker.returncode == 0, worker.stderr[-2000:]
    return worker.stderr[-4000:]


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
    process = start(
        ["up", "--games", str(games), "--workers", str(workers), "--port", "0"],
        env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
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
        children.wait_or_kill(process, 60)
