"""Charging a shared process's CPU time to the matches it serves.

A warm bot process serves several seats at once (always of the same bot version). Its
CPU counter only grows; it is read whenever a request (a start, a decision) is sent
to the process or answered, and the time used since the last answer is charged to the
request answered next: a process computes one answer at a time, so what it used since
its last answer went into this one, whatever order the requests came in (an SDK bot
serves each match on a stream of its own, and may answer a later request of one match
before an earlier start of another). A match thus pays for what the bot computed for
it, not for the other matches waiting beside it. CPU used while no request is open (a
bot computing between its requests) is its own too: it goes to the next answer. A
request given up (late) is charged like an answer. ``on_busy`` hears when the process
starts and stops having open requests (its control group's CPU weight follows).
"""

from __future__ import annotations

import contextlib
import itertools
import os
from collections.abc import Callable
from pathlib import Path


class CpuMeter:
    """One process's CPU counter, charged to each answer for the time since the last."""

    def __init__(
        self,
        read: Callable[[], float | None],
        on_busy: Callable[[bool], None] | None = None,
    ) -> None:
        """``read()`` is the process's CPU seconds so far, or None where nothing counts it."""
        self._read = read
        self._on_busy = on_busy
        self._last: float | None = read()  # from now on, every CPU second is charged
        #: CPU seconds used since the last answer, for the next one
        self._since_answer = 0.0
        self._tokens = itertools.count()
        self._open: set[int] = set()

    def begin(self) -> int:
        """A request is sent; the token to give back to :meth:`end`."""
        self._advance()
        token = next(self._tokens)
        self._open.add(token)
        if len(self._open) == 1 and self._on_busy is not None:
            self._on_busy(True)
        return token

    def end(self, token: int) -> float:
        """The request is answered (or given up): the CPU seconds charged to it."""
        self._advance()
        if token not in self._open:
            return 0.0
        self._open.discard(token)
        charged, self._since_answer = self._since_answer, 0.0
        if not self._open and self._on_busy is not None:
            self._on_busy(False)
        return charged

    def _advance(self) -> None:
        used = self._read()
        if used is None:
            return
        if self._last is not None:
            self._since_answer += max(0.0, used - self._last)
        self._last = used


_TICKS = os.sysconf("SC_CLK_TCK")


def process_tree_cpu(pid: int) -> float | None:
    """CPU seconds used by a live process and all its descendants, living or ended
    (Linux ``/proc``), for hosts where no control group counts it; None once the
    process is gone."""
    total, pending, seen = 0, [pid], set()
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        try:
            stat = Path(f"/proc/{current}/stat").read_text()
        except OSError:
            if current == pid:
                return None
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        # utime, stime, and the same of its children that ended and were waited for
        total += sum(int(value) for value in fields[11:15])
        pending.extend(_children(current))
    return total / _TICKS


def _children(pid: int) -> list[int]:
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError):
                found.extend(int(child) for child in (task / "children").read_text().split())
    return found
