"""Child processes that never outlive their parent.

Every process the platform starts (workers, the dashboard, a private Redis, local bots)
is started with :func:`spawn`: the kernel kills it (``PR_SET_PDEATHSIG``, SIGKILL) as
soon as its parent dies, however the parent dies, ``kill -9`` included; a stop in order
still goes through each owner's own SIGTERM first. Sandboxes get the same from
bubblewrap's ``--die-with-parent``.

Linux ties the signal to the *thread* that started the child: start long-lived children
from a thread that lives as long as they should (the main thread, or the worker's
runtime loop).
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from functools import cache
from typing import Any

#: prctl(2) option: the signal a process gets when its parent dies
_PR_SET_PDEATHSIG = 1


@cache
def _prctl() -> Callable[..., int] | None:
    """libc's prctl, looked up in the parent (never after fork); None off Linux."""
    if not sys.platform.startswith("linux"):
        return None
    return ctypes.CDLL(None, use_errno=True).prctl


def _die_with(parent: int, prctl: Callable[..., int]) -> Callable[[], None]:
    def in_the_child() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the signal was armed
            os._exit(1)

    return in_the_child


def _armed(options: dict[str, Any]) -> dict[str, Any]:
    prctl = _prctl()
    return options if prctl is None else {**options, "preexec_fn": _die_with(os.getpid(), prctl)}


def spawn(command: list[str], **options: Any) -> subprocess.Popen[Any]:
    """``subprocess.Popen(command, **options)`` for a child killed when this process
    (the thread calling this) dies."""
    return subprocess.Popen(command, **_armed(options))


def run(command: list[str], **options: Any) -> subprocess.CompletedProcess[Any]:
    """``subprocess.run(command, **options)``, the child killed when this process dies."""
    return subprocess.run(command, **_armed(options))
