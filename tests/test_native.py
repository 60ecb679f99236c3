"""The compiled engine (arena/native.py): the same results as the Python it is built from,
and never older than its source."""

from __future__ import annotations

import copy
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena import native
from arena.engine import Game, Ruleset
from arena.engine.match import Match
from arena.policies import RandomLegal
from tests.support.fingerprints import CHUNK, kept

ROOT = Path(__file__).resolve().parents[1]


def _tree_with(tmp_path: Path, *sources: str) -> Path:
    """A fake tree holding ``sources`` compiled (shims and library made after them)."""
    for source in sources:
        (tmp_path / source).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / source).write_text("")
    for source in sources:
        native.extension(source, tmp_path).write_bytes(b"")
    native.library(tmp_path).write_bytes(b"")
    return tmp_path


def _later(path: Path, than: Path) -> None:
    made = than.stat().st_mtime_ns
    os.utime(path, ns=(made + 1_000_000_000, made + 1_000_000_000))


def test_a_source_changed_after_its_build_is_refused_with_the_way_to_rebuild(
    tmp_path: Path,
) -> None:
    deal, policies = "arena/engine/deal.py", "arena/policies.py"
    root = _tree_with(tmp_path, deal, policies)
    assert native.stale(root) == []
    native.check(root)
    _later(root / deal, than=native.library(root))
    assert native.stale(root) == [deal]
    with pytest.raises(native.StaleNativeModule, match="make native"):
        native.check(root)


def test_a_c_module_older_than_its_source_is_stale(tmp_path: Path) -> None:
    (source,) = native.C_MODULES
    root = _tree_with(tmp_path, "arena/engine/deal.py", source)
    assert native.stale(root) == []
    _later(root / source, than=native.extension(source, root))
    assert native.stale(root) == [source]
    with pytest.raises(native.StaleNativeModule, match="make native"):
        native.check(root)


def test_shims_without_their_library_are_all_stale(tmp_path: Path) -> None:
    root = _tree_with(tmp_path, "arena/engine/deal.py")
    native.library(root).unlink()
    assert native.stale(root) == ["arena/engine/deal.py"]


def test_a_build_that_recorded_its_sources_is_judged_by_content_not_time(
    tmp_path: Path,
) -> None:
    """An install gives every file the time it was written: sources newer than the
    library are the same code (the wheel's case); a changed text is stale whatever its
    time."""
    deal, source_c = "arena/engine/deal.py", native.C_MODULES[0]
    root = _tree_with(tmp_path, deal, "arena/policies.py", source_c)
    (root / deal).write_text("x = 1\n")
    for source in native.MODULES + native.C_MODULES:
        (root / source).parent.mkdir(parents=True, exist_ok=True)
        (root / source).touch()
    native.write_sums(root)
    for source in (deal, source_c):
        _later(root / source, than=native.library(root))
    assert native.stale(root) == []
    (root / deal).write_text("x = 2\n")
    assert native.stale(root) == [deal]


def test_the_compiled_package_copied_as_an_install_does_imports(tmp_path: Path) -> None:
    """The checkout's compiled package, copied with every file new (as pip installs a
    wheel, sources written after the library), imports and runs compiled."""
    if not native.compiled():
        pytest.fail("the checkout is not compiled: make native")
    installed = tmp_path / "site"
    shutil.copytree(ROOT / "arena", installed / "arena", copy_function=shutil.copyfile)
    later = native.library(installed).stat().st_mtime_ns + 1_000_000_000
    for source in installed.rglob("*.py"):
        os.utime(source, ns=(later, later))
    ran = subprocess.run(
        [sys.executable, "-c", "import arena.sdk, arena.native as n; print(n.ROOT, n.compiled())"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(installed)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split() == [str(installed), "True"]


def test_a_tree_never_compiled_is_plain_python(tmp_path: Path) -> None:
    (tmp_path / "arena/engine").mkdir(parents=True)
    assert native.built(tmp_path) == [] and native.stale(tmp_path) == []


def test_this_checkout_is_not_stale() -> None:
    assert native.stale() == []


@pytest.mark.processes
def test_the_engine_as_plain_python_plays_as_the_compiled_one(tmp_path: Path) -> None:
    """A copy of the sources without any compiled module reproduces the recorded
    fingerprints (and so does the compiled engine: tests/test_fingerprints.py)."""
    shutil.copytree(ROOT / "arena", tmp_path / "arena", ignore=shutil.ignore_patterns("*.so"))
    shutil.copytree(ROOT / "tests", tmp_path / "tests", ignore=shutil.ignore_patterns("*.so"))
    script = (
        "import json, sys\n"
        "from arena import native\n"
        "from tests.support.fingerprints import fingerprint\n"
        "assert not native.compiled(), 'the copy has no compiled module'\n"
        f"print(json.dumps([fingerprint(case) for case in range({CHUNK})]))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        check=True,
    )
    recorded = kept()
    assert result.stdout.strip() == str([recorded[str(case)] for case in range(CHUNK)]).replace(
        "'", '"'
    )


def test_a_copied_deal_goes_on_exactly_as_the_original() -> None:
    game = Game(Ruleset.parse("pagat"), 4)
    deal = Match(game, seed="copy").next_deal()
    policies = [RandomLegal(seat) for seat in range(4)]
    for _ in range(7):
        seat = deal.to_act
        assert seat is not None
        deal.apply(seat, policies[seat].act(deal.observation(seat)))
    twin, twin_policies = copy.deepcopy(deal), copy.deepcopy(policies)
    assert twin.hands is not deal.hands and twin.events == deal.events
    for one, policy_set in ((deal, policies), (twin, twin_policies)):
        while not one.over:
            seat = one.to_act
            assert seat is not None
            one.apply(seat, policy_set[seat].act(one.observation(seat)))
    assert twin.events == deal.events and twin.ranking == deal.ranking
