"""Consoles for the commands: wide enough for tables when output is not a terminal."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TypeVar

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


def stdout() -> Console:
    return Console(highlight=False, width=None if sys.stdout.isatty() else 160)


def stderr() -> Console:
    return Console(stderr=True, highlight=False, soft_wrap=True)  # messages never wrap


#: what a follower shows of a status: (done so far, description)
Shown = tuple[float, str]
#: what a follower reads again until it is over (a dict, or a service's frozen answer)
Status = TypeVar("Status")


def follow(
    read: Callable[[], Status],
    over: Callable[[Status], bool],
    total: float,
    shown: Callable[[Status], Shown],
    timeout: float | None = None,
    counted: bool = True,
) -> Status:
    """A progress bar on stderr, the status ``read`` again every half second until it
    is ``over``; the final status. TimeoutError after ``timeout`` seconds."""
    status = read()
    deadline = None if timeout is None else time.monotonic() + timeout
    columns = [TextColumn("{task.description}"), BarColumn()]
    columns += [MofNCompleteColumn()] if counted else []
    with Progress(*columns, TimeElapsedColumn(), console=stderr()) as bar:
        task = bar.add_task(shown(status)[1], total=total)
        while not over(status):
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(timeout)
            time.sleep(0.5)
            status = read()
            completed, description = shown(status)
            bar.update(task, completed=completed, description=description)
    return status
