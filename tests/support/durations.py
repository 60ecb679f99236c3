"""The order the tests run in: each test process gets a pile of equal length in time.

pytest-xdist's ``worksteal`` cuts the collected tests, in order, into one run of equal
count per process, and a process that runs out takes the second half of the busiest
one's queue. Equal counts are not equal work (a few tests wait on matches, hosts and
browsers for tens of seconds; most take a hundredth of a second), so the order dealt here
makes each run an equal share of the measured time, longest first: what is left to
steal at the end is short. Tests that share a module's fixture (a browser, a server)
stay together. ``tests/durations.json`` holds the measured times (``make durations``);
a test it does not know counts as a short one.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

#: the measured durations, in seconds, of the tests that take a fifth of a second or more
DURATIONS = Path(__file__).parent.parent / "durations.json"

#: what a test counts for when the file does not know it (the median of the rest)
UNKNOWN_SECONDS = 0.03

#: tests shorter than this are left out of the file (they count as UNKNOWN_SECONDS)
RECORDED_FROM_SECONDS = 0.2


@dataclass
class _Unit:
    """Tests that run one after another in the same process: one, or a module's tests
    that share a fixture of the module's scope."""

    items: list[pytest.Item]
    seconds: float


@dataclass
class _Pile:
    """The tests one process is first given."""

    size: int
    units: list[_Unit] = field(default_factory=list)
    seconds: float = 0.0
    count: int = 0

    def room(self) -> int:
        return self.size - self.count

    def take(self, unit: _Unit) -> None:
        self.units.append(unit)
        self.seconds += unit.seconds
        self.count += len(unit.items)


def measured(path: Path = DURATIONS) -> dict[str, float]:
    """The durations file's times by test id (none when it is missing)."""
    if not path.exists():
        return {}
    return {str(k): float(v) for k, v in json.loads(path.read_text()).items()}


def worker_count() -> int:
    """How many test processes share the run (1 without pytest-xdist)."""
    return int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))


def pile_sizes(total: int, piles: int) -> list[int]:
    """How many tests worksteal first gives each of ``piles`` processes, in its order."""
    sizes = []
    for index in range(piles):
        size = total // (piles - index)
        sizes.append(size)
        total -= size
    return sizes


def deal(items: Sequence[pytest.Item], seconds: dict[str, float], piles: int) -> list[pytest.Item]:
    """``items`` in piles of worksteal's sizes and of about equal time, each longest first."""
    units = sorted(_units(items, seconds), key=lambda unit: -unit.seconds)
    dealt = [_Pile(size) for size in pile_sizes(len(items), piles)]
    for unit in units:
        # a unit larger than any pile's room overfills one (its tests stay together)
        fitting = [pile for pile in dealt if pile.room() >= len(unit.items)] or dealt
        min(fitting, key=lambda pile: pile.seconds).take(unit)
    return [item for pile in dealt for unit in pile.units for item in unit.items]


def _units(items: Sequence[pytest.Item], seconds: dict[str, float]) -> list[_Unit]:
    """One unit per test, but one for all the tests of a module with a fixture of the
    module's scope, in the module's order (they share its state)."""
    sharing = {_module(item) for item in items if _uses_a_module_fixture(item)}
    shared: dict[str, _Unit] = {}
    units = []
    for item in items:
        cost = seconds.get(item.nodeid, UNKNOWN_SECONDS)
        module = _module(item)
        if module not in sharing:
            units.append(_Unit([item], cost))
            continue
        if module not in shared:
            shared[module] = _Unit([], 0.0)
            units.append(shared[module])
        shared[module].items.append(item)
        shared[module].seconds += cost
    return units


def _module(item: pytest.Item) -> str:
    return item.nodeid.split("::")[0]


def _uses_a_module_fixture(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    return any(
        definitions[-1].scope == "module"
        for name in info.names_closure
        if (definitions := info.name2fixturedefs.get(name, ()))
    )


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--record-durations",
        action="store_true",
        help=f"keep the time of each test that runs in tests/{DURATIONS.name} (make durations)",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("record_durations") and "PYTEST_XDIST_WORKER" not in os.environ:
        config.pluginmanager.register(Recorder(DURATIONS), "arena-durations-recorder")


@pytest.hookimpl(trylast=True)  # after ``-m`` has deselected: the piles are of what runs
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items[:] = deal(items, measured(), worker_count())


class Recorder:
    """Keeps each test's time (set-up, call and tear-down) and writes the durations file
    at the session's end: ``pytest --record-durations``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.seconds: dict[str, float] = defaultdict(float)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[report.nodeid] += report.duration

    def pytest_sessionfinish(self) -> None:
        """The file's times, those of the tests that ran replaced by this run's."""
        kept = {k: v for k, v in measured(self.path).items() if k not in self.seconds}
        kept.update(
            (nodeid, round(seconds, 2))
            for nodeid, seconds in self.seconds.items()
            if seconds >= RECORDED_FROM_SECONDS
        )
        self.path.write_text(json.dumps(dict(sorted(kept.items())), indent=0) + "\n")
