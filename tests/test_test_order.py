"""The order the suite runs in (tests/support/durations.py): pytest-xdist's worksteal first
gives each process a pile of about equal time, longest first, and a module's tests that
share its fixtures stay together in the module's order."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from xdist.scheduler import WorkStealingScheduling

from tests.support.cli import ROOT
from tests.support.durations import Recorder, measured, pile_sizes

PROCESSES = 4


class _Node:
    """What worksteal's scheduler sends to a test process, kept."""

    def __init__(self, name: str) -> None:
        self.gateway = SimpleNamespace(id=name)
        self.shutting_down = False
        self.sent: list[int] = []

    def send_runtest_some(self, indices: list[int]) -> None:
        self.sent += indices

    def send_steal(self, indices: list[int]) -> None:
        """Asked to give tests back (what it first got is kept above)."""

    def shutdown(self) -> None:
        self.shutting_down = True


def _first_sent(count: int) -> list[list[int]]:
    """The tests xdist's own scheduler first sends each of the processes."""
    config = SimpleNamespace(getvalue=lambda name: [f"{PROCESSES}*popen"] if name == "tx" else None)
    scheduler = WorkStealingScheduling(config)  # type: ignore[arg-type]
    nodes = [_Node(f"gw{i}") for i in range(PROCESSES)]
    collection = [f"t{i}" for i in range(count)]
    for node in nodes:
        scheduler.add_node(node)  # type: ignore[arg-type]
        scheduler.add_node_collection(node, collection)  # type: ignore[arg-type]
    scheduler.schedule()
    return [node.sent for node in nodes]


@pytest.mark.parametrize("count", [1939, 7, 4, 1])
def test_the_piles_are_the_runs_worksteal_first_sends(count: int) -> None:
    sent = _first_sent(count)
    assert [len(indices) for indices in sent] == pile_sizes(count, PROCESSES)
    assert [index for indices in sent for index in indices] == list(range(count))


@pytest.fixture(scope="module")
def suite_order() -> list[str]:
    """The suite's tests in the order ``make test``'s processes are dealt them."""
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         "-m", "not alone"],
        cwd=ROOT,
        env={**os.environ, "PYTEST_XDIST_WORKER_COUNT": str(PROCESSES)},
        capture_output=True,
        text=True,
        check=True,
    )  # fmt: skip
    return [line for line in collected.stdout.splitlines() if "::" in line]


def _piles(order: list[str]) -> list[list[str]]:
    piles, start = [], 0
    for size in pile_sizes(len(order), PROCESSES):
        piles.append(order[start : start + size])
        start += size
    return piles


@pytest.mark.processes
def test_each_process_gets_an_equal_share_of_the_time_longest_first(
    suite_order: list[str],
) -> None:
    seconds = measured()
    piles = _piles(suite_order)
    times = [sum(seconds.get(test, 0.0) for test in pile) for pile in piles]
    assert max(times) - min(times) <= max(seconds.values()), times
    for pile in piles:  # what is left to steal at the end is short
        quarter = len(pile) // 4
        firsts = sum(seconds.get(test, 0.0) for test in pile[:quarter])
        lasts = sum(seconds.get(test, 0.0) for test in pile[-quarter:])
        assert firsts > 10 * lasts, (firsts, lasts)


@pytest.mark.processes
def test_a_modules_tests_that_share_its_browser_run_one_after_another_in_its_order(
    suite_order: list[str],
) -> None:
    module = "tests/test_browser.py"
    places = [index for index, test in enumerate(suite_order) if test.startswith(module)]
    assert places == list(range(places[0], places[0] + len(places))), "one after another"
    functions = [suite_order[i].split("::")[1].split("[")[0] for i in places]
    source = importlib.import_module("tests.test_browser")
    lines = [getattr(source, name).__code__.co_firstlineno for name in functions]
    assert len(set(functions)) > 10 and lines == sorted(lines), "in the module's order"


def _report(nodeid: str, when: str, duration: float) -> pytest.TestReport:
    location = ("x.py", 0, nodeid)
    return pytest.TestReport(nodeid, location, {}, "passed", None, when, duration=duration)


def test_a_recorded_run_replaces_the_times_of_the_tests_it_ran_only(tmp_path: Path) -> None:
    kept = tmp_path / "durations.json"
    kept.write_text(json.dumps({"a": 3.0, "b": 2.0, "c": 1.0}))
    recorder = Recorder(kept)
    for nodeid, seconds in (("a", 0.05), ("b", 1.0), ("d", 0.2)):
        for when in ("setup", "call", "teardown"):
            recorder.pytest_runtest_logreport(_report(nodeid, when, seconds))
    recorder.pytest_sessionfinish()
    # a is now too short to keep, b and d are this run's (set-up, call and tear-down)
    assert measured(kept) == {"b": 3.0, "c": 1.0, "d": 0.6}
