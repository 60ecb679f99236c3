"""The modules built as native code, and the check that none runs older than its source.

``setup.py`` compiles :data:`MODULES` with mypyc (the engine, the random policy and the
self-play loop: every step of a deal and of training goes through them) when a C
compiler is there; each module stays plain Python beside its extension, which Python
loads first. Without a compiler, or with ``ARENA_PURE_PYTHON=1`` at install, they run as
Python: slower, the same results (tests/test_native.py holds both to the same
fingerprints). An extension older than its source would run the old code, so
``import arena`` refuses it and says how to rebuild (``make native``).

This module is read by ``setup.py`` before anything is installed: standard library only.
"""

from __future__ import annotations

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
#: the mypyc group: its shared library is ``arena/engine/_native__mypyc.*.so``
GROUP = "arena.engine._native"
_SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


class StaleNativeModule(ImportError):
    """A compiled module is older than its source."""


def extension(source: str) -> Path:
    """Where the compiled form of ``source`` (a path in :data:`MODULES`) is built: a small
    shim that loads the module's code from the group's library."""
    return ROOT / (source.removesuffix(".py") + _SUFFIX)


def library() -> Path:
    """The group's shared library, which holds the code of every compiled module."""
    return ROOT / (GROUP.replace(".", "/") + "__mypyc" + _SUFFIX)


def built() -> list[str]:
    """The modules of :data:`MODULES` that have a compiled form here."""
    return [source for source in MODULES if extension(source).exists()]


def stale() -> list[str]:
    """The compiled modules whose source changed after the library was built (all of
    them when the library is missing)."""
    shims = built()
    if not shims:
        return []
    lib = library()
    if not lib.exists():
        return shims
    made = lib.stat().st_mtime_ns
    return [source for source in shims if (ROOT / source).stat().st_mtime_ns > made]


def check() -> None:
    """Raise :class:`StaleNativeModule` when a compiled module would run old code."""
    late = stale()
    if late:
        raise StaleNativeModule(
            f"{', '.join(late)} changed after it was compiled, so Python would run the old "
            "code: rebuild with `make native` (or `python setup.py build_ext --inplace`), "
            "or delete the compiled modules with `make pure`"
        )
