"""The modules built as native code, and the check that none runs older than its source.

``setup.py`` compiles :data:`MODULES` with mypyc (the engine, the random policy and the
self-play loop: every step of a deal and of training goes through them) when a C
compiler is there; each module stays plain Python beside its extension, which Python
loads first. Without a compiler, or with ``ARENA_PURE_PYTHON=1`` at install, they run as
Python: slower, the same results (tests/test_native.py holds both to the same
fingerprints). An extension built from other source than the one beside it would run
the old code, so ``import arena`` refuses it and says how to rebuild (``make native``).
The build writes each source's digest in :data:`SUMS` (packaged with the wheel), and the
check compares contents, not times: an install gives every file its own time. A build
without that file (an older one) is judged by times.

This module is read by ``setup.py`` before anything is installed: standard library only.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: the compiled modules, as paths from the repository root
MODULES = (
    "arena/engine/cards.py",
    "arena/engine/deal.py",
    "arena/engine/draws.py",
    "arena/engine/game.py",
    "arena/engine/legal.py",
    "arena/engine/observation.py",
    "arena/game/selfplay.py",
    "arena/policies.py",
)
#: modules written in C, each built as an extension of its own beside its source
C_MODULES = ("arena/engine/_records.c",)
#: the mypyc group: its shared library is ``arena/engine/_native__mypyc.*.so``
GROUP = "arena.engine._native"
_SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]
#: each compiled source's sha256 when it was built: ``digest  path`` lines
SUMS = "arena/engine/_native.sums"


class StaleNativeModule(ImportError):
    """A compiled module is older than its source."""


def extension(source: str, root: Path = ROOT) -> Path:
    """Where the compiled form of ``source`` (a path in :data:`MODULES`, or in
    :data:`C_MODULES`) is built: for a Python module a small shim that loads the
    module's code from the group's library."""
    return root / (source.rsplit(".", 1)[0] + _SUFFIX)


def library(root: Path = ROOT) -> Path:
    """The group's shared library, which holds the code of every compiled module."""
    return root / (GROUP.replace(".", "/") + "__mypyc" + _SUFFIX)


def built(root: Path = ROOT) -> list[str]:
    """The modules of :data:`MODULES` that have a compiled form under ``root``."""
    return [source for source in MODULES if extension(source, root).exists()]


def digest(source: str, root: Path = ROOT) -> str:
    return hashlib.sha256((root / source).read_bytes()).hexdigest()


def write_sums(root: Path = ROOT) -> None:
    """Record what is about to be compiled (setup.py, before the build)."""
    lines = [f"{digest(source, root)}  {source}" for source in (*MODULES, *C_MODULES)]
    written = (root / SUMS).with_suffix(".writing")
    written.write_text("\n".join(lines) + "\n")
    written.replace(root / SUMS)  # whole, for an import that reads it meanwhile


def _sums(root: Path) -> dict[str, str] | None:
    try:
        text = (root / SUMS).read_text()
    except OSError:
        return None
    return {path: value for value, path in (line.split("  ", 1) for line in text.splitlines())}


def stale(root: Path = ROOT) -> list[str]:
    """The compiled modules (and C modules) built from other source than the one here:
    by their digests when the build recorded them, else by time (sources newer than the
    library, all of them when the library is missing)."""
    sums = _sums(root)
    compiled_here = [s for s in C_MODULES if extension(s, root).exists()] + built(root)
    if sums is not None and compiled_here and library(root).exists():
        return [s for s in compiled_here if sums.get(s) != digest(s, root)]
    late = [
        source
        for source in C_MODULES
        if extension(source, root).exists()
        and (root / source).stat().st_mtime_ns > extension(source, root).stat().st_mtime_ns
    ]
    shims = built(root)
    if not shims:
        return late
    lib = library(root)
    if not lib.exists():
        return shims + late
    made = lib.stat().st_mtime_ns
    return [source for source in shims if (root / source).stat().st_mtime_ns > made] + late


def compiled(root: Path = ROOT) -> bool:
    """Does Python run the compiled engine here? (It loads an extension before the source
    beside it, and ``import arena`` refuses a stale one.)"""
    return bool(built(root)) and library(root).exists()


def check(root: Path = ROOT) -> None:
    """Raise :class:`StaleNativeModule` when a compiled module would run old code."""
    late = stale(root)
    if late:
        raise StaleNativeModule(
            f"{', '.join(late)} changed after it was compiled, so Python would run the old "
            "code: rebuild with `make native` (or `python setup.py build_ext --inplace`), "
            "or delete the compiled modules with `make pure`"
        )
