"""Sample bots, each runnable as its own process: ``python -m sample_bots.NAME --port P``.

Each is an SDK :class:`~arena.sdk.Bot`; in process, ``SAMPLES[name](ruleset=..., players=...,
seed=...)`` builds one that works as a policy too. The bots are imported when first
asked for, so reading ``NAMES`` loads nothing (the store checks names with it).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from arena.sdk.languages import LANGUAGES

#: the sample bots' names (``sample:NAME`` on the command line)
NAMES = ("random", "honest", "counter", "bluffer")
_CLASSES = {
    "RandomBot": "random",
    "HonestBot": "honest",
    "CounterBot": "counter",
    "BlufferBot": "bluffer",
}
#: the starter kits in languages other than Python (``kit(language)``): one a language
KITS = tuple(name for name in LANGUAGES if name != "python")
__all__ = ["KITS", "NAMES", "SAMPLES", "kit", *_CLASSES]


def kit(language: str) -> Path:
    """The starter kit of ``language`` (a name of :data:`arena.sdk.languages.LANGUAGES`):
    a complete small bot, as good as the README's truthful one (which is Python's)."""
    return Path(__file__).parent / language


def __getattr__(name: str) -> Any:
    """``SAMPLES`` (name -> bot class) and the bot classes, imported on first use."""
    if name == "SAMPLES":
        return {sample: __getattr__(cls) for cls, sample in _CLASSES.items()}
    if name in _CLASSES:
        return getattr(importlib.import_module(f"sample_bots.{_CLASSES[name]}"), name)
    raise AttributeError(f"module 'sample_bots' has no attribute {name!r}")
