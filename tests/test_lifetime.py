"""Nothing a test starts outlives it: a pytest killed with ``kill -9`` in the middle of
a test leaves no process behind (tests/support/lifetime.py says how)."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

from arena.platform import children
from tests.support import lifetime
from tests.support.waiting import HANG_SECONDS

SCENARIO = Path(__file__).parent / "support" / "lifetime_scenario.py"


def _wait(condition, what: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"waited {timeout:g} s for {what}"
        time.sleep(0.05)


@pytest.mark.slow
@pytest.mark.processes
def test_a_pytest_killed_mid_test_leaves_no_process_behind(tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    env = {k: v for k, v in os.environ.items() if k != lifetime.SESSION_VARIABLE}
    env["ARENA_LIFETIME_READY"] = str(ready)
    inner = children.spawn(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(SCENARIO)],
        env=env,
        cwd=Path(__file__).parents[1],
        stdout=open(tmp_path / "inner.log", "wb"),  # noqa: SIM115 - the child keeps it
        stderr=open(tmp_path / "inner.err", "wb"),  # noqa: SIM115
        start_new_session=True,
    )
    try:
        _wait(lambda: ready.exists() or inner.poll() is not None, "the inner test", 180)
        assert inner.poll() is None, (tmp_path / "inner.log").read_text()[-3000:]
        session = lifetime.session_id(inner.pid)
        # Redis, 2 workers, a bot, arena up with its Redis, worker and dashboard
        _wait(lambda: len(lifetime.descendants(inner.pid)) >= 8, "everything to start", 120)
        marked = lifetime.marked(session)  # before the tree: processes keep starting
        started = lifetime.descendants(inner.pid)
        assert int(ready.read_text()) in started, "arena up runs"
        outside = {pid for pid in marked if pid not in started}
        assert not {pid for pid in outside if Path(f"/proc/{pid}").exists()}
        os.kill(inner.pid, signal.SIGKILL)
        inner.wait()
        _wait(lambda: not lifetime.running(started), "every process to die", 30)
        _wait(lambda: not lifetime.marked(session), "every marked process to die", 30)
    finally:
        if inner.poll() is None:
            inner.kill()
            inner.wait()


def _wait_for_exec(pid: int, program: bytes) -> None:
    """Wait until the process runs ``program`` (its environment is then its own)."""
    deadline = time.monotonic() + HANG_SECONDS
    while Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0] != program:
        assert time.monotonic() < deadline, f"process {pid} never ran {program!r}"
        time.sleep(0.01)


@pytest.mark.processes
def test_a_new_session_kills_what_a_dead_session_left(tmp_path: Path) -> None:
    """Behind the kernel's signal, the sweep: a process marked by a session that is over
    is killed; one marked by a live session is not."""
    dead = children.spawn(["true"])
    dead.wait()
    orphan_env = {**os.environ, lifetime.SESSION_VARIABLE: f"{dead.pid}-0"}
    live_env = {**os.environ, lifetime.SESSION_VARIABLE: lifetime.session_id()}
    orphan = children.spawn(["sleep", "600"], env=orphan_env)
    alive = children.spawn(["sleep", "600"], env=live_env)
    try:
        for process in (orphan, alive):  # until its exec, a child shows its parent's marks
            _wait_for_exec(process.pid, b"sleep")
        assert orphan.pid in lifetime.sweep_dead_sessions()
        assert orphan.wait(10) == -signal.SIGKILL
        assert alive.poll() is None
    finally:
        for process in (orphan, alive):
            process.kill()
            process.wait()
