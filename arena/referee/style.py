"""Play style from a match log: how often each seat bluffed, called, and was right.

Pure: a log (arena.referee.log) in, counts per seat out; the referee counts as it goes.
A log holds every hand, so whether a play was a bluff is known afterwards even when
nobody called it. Only actions the engine carried out count (an illegal action is not a
play or a call).
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.engine import Play
from arena.engine.cards import truthful
from arena.engine.events import Event, Illegal, Played, Revealed
from arena.referee.log import MatchLog

STYLE_FIELDS = ("plays", "bluffs", "challenges", "challenges_right", "believes", "believes_right")


class StyleCounter:
    """Counts play style as a match goes: ``add`` each step's action (an engine action,
    or None for a timeout or forfeit) and the events it caused."""

    def __init__(self, players: int) -> None:
        self.counts = [dict.fromkeys(STYLE_FIELDS, 0) for _ in range(players)]

    def add(self, seat: int, action: object, events: Sequence[Event]) -> None:
        kind = getattr(action, "kind", None)
        if kind not in _COUNTED:
            return  # a pass, a discard of fours, a timeout or a forfeit
        played = revealed = None
        for event in events:  # one pass: the referee calls this at every step
            if type(event) is Illegal:
                return  # the engine refused the action: it counts as nothing
            if type(event) is Played:
                played = event
            elif type(event) is Revealed:
                revealed = event
        mine = self.counts[seat]
        if isinstance(action, Play):
            if played is not None:
                mine["plays"] += 1
                mine["bluffs"] += not truthful(action.cards, action.rank, action.count)
        elif revealed is not None:
            call = "challenges" if kind == "challenge" else "believes"
            mine[call] += 1
            mine[f"{call}_right"] += revealed.truthful == (call == "believes")


#: the actions style counts
_COUNTED = frozenset({"play", "challenge", "believe"})


def style_counts(log: MatchLog) -> list[dict[str, int]]:
    """The counts a log's seats carry, or (a log written before they did) counted from
    its steps."""
    carried = [dict(seat.style) for seat in log.seats if seat.style is not None]
    if len(carried) == len(log.seats):
        return carried
    counter = StyleCounter(log.players)
    for deal in log.deals:
        for step in deal.steps:
            if step.kind == "act":
                counter.add(step.seat, step.action, step.events)
    return counter.counts
