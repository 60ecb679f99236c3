"""Consoles for the commands: wide enough for tables when output is not a terminal."""

from __future__ import annotations

import sys

from rich.console import Console


def stdout() -> Console:
    return Console(highlight=False, width=None if sys.stdout.isatty() else 160)


def stderr() -> Console:
    return Console(stderr=True, highlight=False, soft_wrap=True)  # messages never wrap
