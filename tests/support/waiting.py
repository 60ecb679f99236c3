"""Waiting on other processes without letting the machine's speed decide a verdict.

A test waits for an event (a job started, a match running, a worker registered); the only
clock is a hang guard, far beyond what any step takes on a loaded, shared machine, so
that a slow run passes and only a hang fails (with what was awaited)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

#: how long a wait may last before the test calls it a hang
HANG_SECONDS = 300.0


def wait_until(
    condition: Callable[[], T],
    what: str,
    timeout: float = HANG_SECONDS,
    poll: float = 0.05,
) -> T:
    """The first true value of ``condition()``; fails saying ``what`` never happened
    once ``timeout`` has passed."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        assert time.monotonic() < deadline, f"waited {timeout:g} s: {what}"
        time.sleep(poll)
    return value
