"""Play style from a match log: how often each seat bluffed, called, and was right.

Pure: a log (arena.referee.log) in, counts per seat out. A log holds every hand, so
whether a play was a bluff is known afterwards even when nobody called it. Only actions
the engine carried out count (an illegal action is not a play or a call).
"""

from __future__ import annotations

from arena.engine import Believe, Challenge, Play
from arena.engine.cards import JOKER, RANK_OF
from arena.engine.events import Revealed
from arena.referee.log import MatchLog, StepKind

STYLE_FIELDS = ("plays", "bluffs", "challenges", "challenges_right", "believes", "believes_right")


def style_counts(log: MatchLog) -> list[dict[str, int]]:
    counts = [dict.fromkeys(STYLE_FIELDS, 0) for _ in range(log.players)]
    for deal in log.deals:
        for step in deal.steps:
            if step.kind is not StepKind.ACT:
                continue
            kinds = {event.kind for event in step.events}
            if "illegal" in kinds:
                continue
            mine, action = counts[step.seat], step.action
            if isinstance(action, Play) and "played" in kinds:
                mine["plays"] += 1
                mine["bluffs"] += not _truthful(action)
            elif isinstance(action, Challenge | Believe):
                revealed = next(e for e in step.events if isinstance(e, Revealed))
                call = "challenges" if isinstance(action, Challenge) else "believes"
                mine[call] += 1
                mine[f"{call}_right"] += revealed.truthful == (call == "believes")
    return counts


def _truthful(play: Play) -> bool:
    return play.count == len(play.cards) and all(
        card == JOKER or RANK_OF[card] == play.rank for card in play.cards
    )
