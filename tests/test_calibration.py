"""The benches' calibration: a CPU-bound loop in several processes, each started bare."""

from __future__ import annotations

import sys

from arena.bench.calibration import cpu_scaling
from arena.platform import children

#: packages a process of the platform imports, and the calibration's must not
PLATFORM = ("sqlalchemy", "grpc", "rq", "redis", "fastapi", "arena.platform", "arena.store")


def test_the_loops_processes_import_none_of_the_platform() -> None:
    """Each process of the loop imports the module of its function: the platform's
    imports would cost it most of a second of CPU (six starts a run)."""
    imported = children.run(
        [sys.executable, "-c", "import sys, arena.bench.calibration; print(*sys.modules)"],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    assert "arena.bench.calibration" in imported
    assert [name for name in imported if name.startswith(PLATFORM)] == []


def test_two_processes_of_the_loop_get_a_figure() -> None:
    """What two processes get done against one depends on the machine's load as much as
    on its cores: only its being a figure is held, and one process is the unit."""
    assert cpu_scaling(1) == 1.0
    assert cpu_scaling(2, seconds=0.05, repeats=1) > 0
