"""The runtime image of one installation is never swept away by another's while a process
of its own uses it (two checkouts, or an upgrade beside running workers, on one machine)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.platform.sandbox import runtime

HOLDER = """
import sys
from pathlib import Path
from arena.platform.sandbox import runtime
runtime.scratch = lambda: Path(sys.argv[1])
runtime._hold(sys.argv[2])
print("held", flush=True)
sys.stdin.read()
"""


def _image(folder: Path, name: str) -> Path:
    (folder / name / "usr").mkdir(parents=True)
    return folder / name


@pytest.mark.processes
def test_a_sweep_spares_the_image_a_live_process_of_another_installation_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runtime, "scratch", lambda: tmp_path)
    old = f"{runtime.PREFIX}old"
    images = [_image(tmp_path, old), _image(tmp_path, f"{old}.3")]
    orphan = _image(tmp_path, f"{runtime.PREFIX}orphan")  # no process of today's made it
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(tmp_path), old],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).parents[1],
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        runtime._sweep(keep=_image(tmp_path, f"{runtime.PREFIX}new"))
        assert all((image / "usr").is_dir() for image in images), "held: kept with its copy"
        assert not orphan.exists()
    finally:
        holder.communicate("")  # its stdin closed: it exits, its lock with it
    runtime._sweep(keep=tmp_path / f"{runtime.PREFIX}new")
    assert not any(image.exists() for image in images)
    assert not (tmp_path / f".{old}.users").exists()
    assert (tmp_path / f"{runtime.PREFIX}new" / "usr").is_dir()


def test_a_process_holds_its_image_once_on_the_lock_file_a_sweep_would_test(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runtime, "scratch", lambda: tmp_path)
    monkeypatch.setattr(runtime, "_HELD", {})
    name = f"{runtime.PREFIX}mine"
    runtime._hold(name)
    runtime._hold(name)
    assert list(runtime._HELD) == [name]
    held = runtime._HELD[name]
    try:
        assert os.fstat(held).st_ino == (tmp_path / f".{name}.users").stat().st_ino
    finally:
        os.close(held)
