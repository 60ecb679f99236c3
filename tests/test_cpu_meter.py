"""Charging a shared process's CPU to the requests it served."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from arena.platform import children
from arena.platform.sandbox.meter import CpuMeter, process_tree_cpu

pytestmark = pytest.mark.processes


class Counter:
    def __init__(self) -> None:
        self.value = 0.0

    def __call__(self) -> float:
        return self.value


def test_each_answer_is_charged_for_the_cpu_used_since_the_last_one() -> None:
    counter = Counter()
    meter = CpuMeter(counter)
    first = meter.begin()
    counter.value = 1.0
    second = meter.begin()  # queued behind the first
    counter.value = 3.0
    assert meter.end(first) == 3.0
    counter.value = 3.5
    assert meter.end(second) == 0.5
    counter.value = 10.0  # nobody waits: work between requests is the next one's
    third = meter.begin()
    counter.value = 10.25
    assert meter.end(third) == 6.5 + 0.25


def test_the_answer_order_not_the_arrival_order_decides_who_pays() -> None:
    """A match's start waits while the process computes another match's later decision
    (each match has a stream of its own): the decision pays for its computing, the start
    only for what came after it (a burning match charged to a quiet one's start made the
    quiet one forfeit on a loaded machine)."""
    counter = Counter()
    meter = CpuMeter(counter)
    start_of_quiet = meter.begin()
    burning = meter.begin()  # sent after the start, answered before it
    counter.value = 0.9
    assert meter.end(burning) == 0.9
    counter.value = 0.95
    assert meter.end(start_of_quiet) == pytest.approx(0.05)
    assert meter.end(start_of_quiet) == 0.0, "a request is charged once"


def test_the_meter_says_when_its_process_is_waited_on() -> None:
    heard: list[bool] = []
    meter = CpuMeter(lambda: 0.0, heard.append)
    first, second = meter.begin(), meter.begin()
    meter.end(first)
    meter.end(second)
    meter.end(meter.begin())
    assert heard == [True, False, True, False]


def test_a_meter_without_a_counter_charges_nothing() -> None:
    meter = CpuMeter(lambda: None)
    token = meter.begin()
    assert meter.end(token) == 0.0


def test_a_process_tree_counts_its_children_that_ended() -> None:
    burn = "import time\nu = time.process_time() + 0.3\nwhile time.process_time() < u: pass\n"
    child = (
        "import subprocess, sys, time\n"
        f"subprocess.run([sys.executable, '-c', {burn!r}])\n"
        "print('ended', flush=True)\n"
        "time.sleep(600)\n"
    )
    process = children.spawn([sys.executable, "-c", child], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None and process.stdout.readline() == "ended\n"
        used = process_tree_cpu(process.pid) or 0.0
        assert used >= 0.3
        own = process_tree_cpu(os.getpid())
        assert own is not None and own > 0
    finally:
        process.kill()
        process.wait()
    assert process_tree_cpu(process.pid) is None
