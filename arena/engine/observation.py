"""What one seat may know, built by :meth:`arena.engine.deal.Deal.observation`.

The fields are declared once here: an observation holds the seat's own hand and
public facts only (docs/rules.md "What a player may know"). It never holds another
hand, the stock's order, the hidden card, the seed, or an unrevealed card.
"""

from __future__ import annotations

from typing import NamedTuple

from arena.engine.events import Event
from arena.engine.legal import LegalActions, Phase


class LiveGroup(NamedTuple):
    """The group that may still be called: who placed how many, claiming what."""

    author: int
    placed: int
    rank: str
    count: int  # type: ignore[assignment]  # a field named like tuple.count
    opening: bool


class Observation(NamedTuple):
    seat: int
    phase: Phase
    to_act: int | None
    turn: int
    hand: tuple[str, ...]
    hand_sizes: tuple[int, ...]
    stock_size: int
    pile_size: int
    discard_size: int
    round_rank: str | None
    live: LiveGroup | None
    #: the seat's legal actions when it may act now, else ``None``
    legal: LegalActions | None
    #: public events since the index the caller asked for
    events: tuple[Event, ...]
    active: tuple[bool, ...]
    exits: tuple[int, ...]
