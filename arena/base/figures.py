"""Figures as people read them (JSON, pages): the store keeps them exact, presenters
round them here."""

from __future__ import annotations

from dataclasses import asdict, is_dataclass
from typing import Any

#: decimal places a shown figure keeps
PLACES = 3


def rounded(value: Any, places: int = PLACES) -> Any:
    """``value`` as shown: dataclasses as dicts, floats to ``places``, within any
    dicts and lists."""
    if is_dataclass(value) and not isinstance(value, type):
        value = asdict(value)
    if isinstance(value, dict):
        return {key: rounded(item, places) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [rounded(item, places) for item in value]
    if isinstance(value, float):
        return round(value, places)
    return value
