"""Child processes that never outlive their parent.

Every process the platform starts (workers, the dashboard, a private Redis, local bots)
is started with :func:`spawn`: the kernel kills it (``PR_SET_PDEATHSIG``, SIGKILL) as
soon as its parent dies, however the parent dies, ``kill -9`` included; a stop in order
still goes through each owner's own SIGTERM first. Sandboxes get the same from
bubblewrap's ``--die-with-parent``.

The signal is armed by util-linux's ``setpriv --pdeathsig KILL``, which then executes
the command (same pid, same program): arming it in Python between fork and exec
(``preexec_fn``) is not safe in a process with threads, which every worker and test
process has. Without ``setpriv`` (not Linux), children are started as they are.

Linux ties the signal to the *thread* that started the child: start long-lived children
from a thread that lives as long as they should (the main thread, or the worker's
runtime loop).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from functools import cache
from typing import Any, Protocol


class Child(Protocol):
    """What the platform uses of a child process: ``subprocess.Popen``, or a child forked
    by :class:`arena.platform.forkserver.ForkServer`."""

    pid: int

    @property
    def returncode(self) -> int | None: ...

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...

    def send_signal(self, signum: int) -> None: ...


@cache
def _launcher() -> list[str]:
    setpriv = shutil.which("setpriv")
    return [setpriv, "--pdeathsig", "KILL", "--"] if setpriv else []


def command(argv: list[str]) -> list[str]:
    """``argv`` as run by :func:`spawn`: behind the launcher that arms the signal."""
    return [*_launcher(), *argv]


def spawn(argv: list[str], **options: Any) -> subprocess.Popen[Any]:
    """``subprocess.Popen(argv, **options)`` for a child killed when this process (the
    thread calling this) dies."""
    return subprocess.Popen(command(argv), **options)


def run(argv: list[str], **options: Any) -> subprocess.CompletedProcess[Any]:
    """``subprocess.run(argv, **options)``, the child killed when this process dies."""
    return subprocess.run(command(argv), **options)


def wait_or_kill(process: Child, seconds: float) -> int:
    """Wait up to ``seconds`` for ``process`` to end, else kill it (SIGKILL); its status."""
    try:
        return process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGKILL)
        return process.wait()


def alive(pid: int) -> bool:
    """Whether a process ``pid`` runs (one of another user's counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
