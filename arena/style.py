"""Play style from a match log: how often each seat bluffed, called, and was right.

Pure: a log (arena.referee.log) in, counts per seat out. A log holds every hand, so
whether a play was a bluff is known afterwards even when nobody called it. Only actions
the engine carried out count (an illegal action is not a play or a call).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from arena.engine import Believe, Challenge, Play
from arena.engine.cards import JOKER, RANK_OF
from arena.engine.events import Event, Illegal, Played, Revealed


class Logged(Protocol):
    """What style reads of a typed match log (arena.referee.log.MatchLog)."""

    players: int
    seats: Sequence[Any]
    deals: Sequence[Any]


STYLE_FIELDS = ("plays", "bluffs", "challenges", "challenges_right", "believes", "believes_right")


class StyleCounter:
    """Counts play style as a match goes: ``add`` each step's action (an engine action,
    or None for a timeout or forfeit) and the events it caused."""

    def __init__(self, players: int) -> None:
        self.counts = [dict.fromkeys(STYLE_FIELDS, 0) for _ in range(players)]

    def add(self, seat: int, action: object, events: Sequence[Event]) -> None:
        if action is None or any(isinstance(event, Illegal) for event in events):
            return  # a timeout, a forfeit, or an action the engine refused
        mine = self.counts[seat]
        if isinstance(action, Play):
            if any(isinstance(event, Played) for event in events):
                mine["plays"] += 1
                mine["bluffs"] += not _truthful(action)
        elif isinstance(action, Challenge | Believe):
            revealed = next(e for e in events if isinstance(e, Revealed))
            call = "challenges" if isinstance(action, Challenge) else "believes"
            mine[call] += 1
            mine[f"{call}_right"] += revealed.truthful == (call == "believes")


def style_counts(log: Logged) -> list[dict[str, int]]:
    """The counts a log's seats carry, or (a log written before they did) counted from
    its steps."""
    if all(seat.style is not None for seat in log.seats):
        return [dict(seat.style) for seat in log.seats]  # type: ignore[arg-type]
    counter = StyleCounter(log.players)
    for deal in log.deals:
        for step in deal.steps:
            if step.kind == "act":
                counter.add(step.seat, step.action, step.events)
    return counter.counts


def _truthful(play: Play) -> bool:
    return play.count == len(play.cards) and all(
        card == JOKER or RANK_OF[card] == play.rank for card in play.cards
    )
