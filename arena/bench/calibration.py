"""The machine's own ceiling for scaling: a CPU-bound loop in N processes at once
against one.

Virtual cores may share a physical one, and a busy host gives less than it shows, so a
bench that reports how its throughput scales with processes says what the machine
itself allows. The loop's processes import this module alone (the standard library's),
so that starting them costs a bare interpreter's start, not the platform's imports.
"""

from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from statistics import median


def cpu_scaling(processes: int, seconds: float = 1.0, repeats: int = 3) -> float:
    """How much more a CPU-bound Python loop gets done in ``processes`` processes at once
    than in one (2.0 for two idle, independent cores): the median of ``repeats``
    measurements, each of ``seconds`` a loop, in one pool of processes."""
    if processes == 1:
        return 1.0
    with ProcessPoolExecutor(processes, mp_context=get_context("spawn")) as pool:
        list(pool.map(int, range(processes)))  # every process started before the clock runs
        return median(_measured(pool, processes, seconds) for _ in range(repeats))


def _measured(pool: ProcessPoolExecutor, processes: int, seconds: float) -> float:
    alone = [pool.submit(loops_per_s, seconds).result()]  # not in the caller: it is busy
    together = sum(pool.map(loops_per_s, [seconds] * processes))
    alone.append(pool.submit(loops_per_s, seconds).result())
    return together / max(alone)  # one alone before and after: a slow spell does not inflate it


def loops_per_s(seconds: float) -> float:
    """Rounds of a small CPU-bound loop a second, run for ``seconds``."""
    done, began = 0, time.perf_counter()
    while time.perf_counter() - began < seconds:
        total = 0
        for i in range(10_000):
            total += i
        done += 1
    return done / (time.perf_counter() - began)
