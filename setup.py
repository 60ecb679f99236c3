"""Compiles the engine's hot modules with mypyc (arena/native.py says which and why).

Everything else about the package is in pyproject.toml. Without mypyc, a C compiler or
with ``ARENA_PURE_PYTHON=1``, the package installs as plain Python and works the same.
``ARENA_NATIVE_OPT_LEVEL`` sets the C compiler's optimisation (default 3; 0 builds in a
quarter of the time, for a build whose speed does not matter, as the packaging test's).
"""

from __future__ import annotations

import os
import runpy
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

NATIVE = runpy.run_path(str(Path(__file__).parent / "arena" / "native.py"))


class OptionalBuildExt(build_ext):
    """Build the native modules if it can be done here; otherwise say so and go on in
    pure Python (a half-built set is removed: a module without its library cannot load)."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # any build failure: pure Python
            for output in self.get_outputs():
                Path(output).unlink(missing_ok=True)
            print(f"arena: the engine runs as pure Python (not compiled: {error})", file=sys.stderr)


def native_modules() -> list:
    if os.environ.get("ARENA_PURE_PYTHON"):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        return []
    NATIVE["write_sums"](Path(__file__).parent)  # what is compiled, for import's check
    level = os.environ.get("ARENA_NATIVE_OPT_LEVEL", "3")
    compiled = mypycify(list(NATIVE["MODULES"]), opt_level=level, group_name=NATIVE["GROUP"])
    written_in_c = [
        Extension(
            source.removesuffix(".c").replace("/", "."), [source], extra_compile_args=[f"-O{level}"]
        )
        for source in NATIVE["C_MODULES"]
    ]
    return compiled + written_in_c


setup(ext_modules=native_modules(), cmdclass={"build_ext": OptionalBuildExt})
