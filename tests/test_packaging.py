"""Packages that work wherever they are installed (issue 39): the wheel of a clean copy
of the repository, installed into a fresh virtual environment outside the checkout,
imports compiled and serves a bot that a real match is played against."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import play_served_bot

ROOT = Path(__file__).resolve().parents[1]


def _clean_copy(into: Path) -> Path:
    """The files git tracks, as a fresh clone has them."""
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, tracked):
        source, target = ROOT / name.decode(), into / name.decode()
        if source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
    return into


@pytest.mark.slow
@pytest.mark.processes
def test_the_wheel_installs_anywhere_imports_compiled_and_its_bot_plays(tmp_path: Path) -> None:
    source = _clean_copy(tmp_path / "clone")
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "--wheel-dir", str(wheels), str(source)],
        check=True,
    )  # fmt: skip
    (wheel,) = wheels.glob("arena-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([python, "-m", "pip", "install", "--quiet", str(wheel)], check=True)
    elsewhere = {**os.environ, "PYTHONPATH": ""}
    where = subprocess.run(
        [python, "-c", "import arena.sdk, arena.native as n; print(n.ROOT, n.compiled())"],
        cwd=tmp_path, env=elsewhere, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert where.returncode == 0, where.stderr
    root, compiled = where.stdout.split()
    assert Path(root).is_relative_to(venv) and compiled == "True"
    mine = play_served_bot(
        [str(python), "-m", "sample_bots.counter", "--port", "0"], tmp_path, ["sample:random"], 2
    )
    assert mine["games"] == 2 and mine["forfeits"] == 0, mine
