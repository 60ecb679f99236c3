"""Nothing a test starts outlives its test session.

Every process the platform or a test starts dies with its parent (``PR_SET_PDEATHSIG``:
``arena.platform.children``). Behind that, each test session marks the processes it
starts with ``ARENA_TEST_SESSION`` (inherited by every child, and by pytest-xdist's
workers), and a new session kills what a dead session left: anything marked with a
session whose first process no longer runs."""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

SESSION_VARIABLE = "ARENA_TEST_SESSION"


def _started(pid: int) -> str | None:
    """The process's start time (in clock ticks since boot), or None if it is gone: with
    the pid it names one process, never a later one that reused the pid."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]


def session_id(pid: int | None = None) -> str:
    pid = os.getpid() if pid is None else pid
    return f"{pid}-{_started(pid)}"


def mark_session() -> str:
    """Mark this session's processes (xdist workers keep their controller's mark)."""
    return os.environ.setdefault(SESSION_VARIABLE, session_id())


def alive(session: str) -> bool:
    pid, _, started = session.partition("-")
    return pid.isdigit() and _started(int(pid)) == started


def marked(session: str | None = None) -> dict[int, str]:
    """Processes carrying a session mark (only ``session``'s, if given), by pid."""
    found = {}
    prefix = f"{SESSION_VARIABLE}=".encode()
    for environ in Path("/proc").glob("[0-9]*/environ"):
        with contextlib.suppress(OSError):
            for entry in environ.read_bytes().split(b"\0"):
                if entry.startswith(prefix):
                    mark = entry[len(prefix) :].decode(errors="replace")
                    if session is None or mark == session:
                        found[int(environ.parent.name)] = mark
                    break
    return found


def descendants(pid: int) -> dict[int, str]:
    """Every process below ``pid`` now, with its start time (see :func:`running`)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(stat.parent.name))
    found, todo = {}, list(children.get(pid, []))
    while todo:
        child = todo.pop()
        started = _started(child)
        if started is not None:
            found[child] = started
            todo.extend(children.get(child, []))
    return found


def running(processes: dict[int, str]) -> list[int]:
    """Those of ``processes`` (pid: start time) still running."""
    return [pid for pid, started in processes.items() if _started(pid) == started]


def sweep_dead_sessions() -> list[int]:
    """Kill every process left by a test session that is over; the pids killed."""
    killed = []
    for pid, session in marked().items():
        if pid != os.getpid() and not alive(session):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
    return killed
