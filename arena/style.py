"""Play style from a match log: how often each seat bluffed, called, and was right.

Pure: a log in, counts per seat out. A log holds every hand, so whether a play was a
bluff is known afterwards even when nobody called it. Only actions the engine carried
out count (an illegal action is not a play or a call).
"""

from __future__ import annotations

from typing import Any

from arena.engine.cards import JOKER, RANK_OF

STYLE_FIELDS = ("plays", "bluffs", "challenges", "challenges_right", "believes", "believes_right")


def style_counts(log: dict[str, Any]) -> list[dict[str, int]]:
    counts = [dict.fromkeys(STYLE_FIELDS, 0) for _ in range(log["players"])]
    for deal in log["deals"]:
        for step in deal["steps"]:
            if step["kind"] != "act":
                continue
            seat, action, events = step["seat"], step["action"], step["events"]
            kinds = {event["kind"] for event in events}
            if "illegal" in kinds:
                continue
            mine = counts[seat]
            if action["do"] == "play" and "played" in kinds:
                mine["plays"] += 1
                mine["bluffs"] += not _truthful(action)
            elif action["do"] in ("challenge", "believe"):
                revealed = next(e for e in events if e["kind"] == "revealed")
                call = "challenges" if action["do"] == "challenge" else "believes"
                mine[call] += 1
                mine[f"{call}_right"] += revealed["truthful"] == (call == "believes")
    return counts


def _truthful(play: dict[str, Any]) -> bool:
    cards, rank = play["cards"], play["rank"]
    return play["count"] == len(cards) and all(c == JOKER or RANK_OF[c] == rank for c in cards)
