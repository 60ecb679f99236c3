"""Formats of the operator's own: the modules ``ARENA_FORMATS`` names, each registering
its format (arena.tournament.formats) when imported. Every process that reads or plays a
tournament (the CLI, the dashboard, each worker) imports them as it starts, so a format is
known wherever its tournaments are."""

from __future__ import annotations

import importlib

from arena.platform.errors import PlatformError
from arena.platform.settings import Settings


class FormatModuleError(PlatformError):
    """A module ``ARENA_FORMATS`` names could not be imported."""


def load_formats(settings: Settings) -> None:
    """Import each module of ``settings.format_modules`` (once per process)."""
    for name in settings.format_modules:
        try:
            importlib.import_module(name)
        except ImportError as error:
            raise FormatModuleError(f"ARENA_FORMATS: cannot import {name!r}: {error}") from None
