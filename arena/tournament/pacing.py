"""How fast a ladder plays: flat out where a rating is uncertain, a trickle once settled.

A competition's ladder could keep every table in play forever; with nothing new, that
burns every core to move ratings that no longer move. A *paced* ladder spends its play
where the ranking is uncertain, as Halite's and Kaggle's matchmakers do: an entry is
*provisional* until it has played ``PROVISIONAL_GAMES`` rated matches and its σ has
fallen to its rating system's ``settled_sigma`` (arena.tournament.ratings: TrueSkill's σ
starts at 25/3 and settles near 0.65-0.8 at tables of 2 to 8, so its bound of 1 is always
reached, in about 50 matches for a newcomer to a settled field). While any entry is
provisional, every table the ladder may keep in play is seated at once, each around a
provisional entry (a new version gets its first matches at once, and many of them).
Once all are settled, the ladder seats one table every ``60 / pace`` seconds, around the
least played entry: a trickle that keeps the standings honest (an endpoint may change
behind its address) and leaves the machine idle. Pure: the store applies it (arena.store.ladder).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

#: rated matches before an entry can be settled
PROVISIONAL_GAMES = 50
#: a competition's tables a minute once every entry is settled: one every 10 s
DEFAULT_PACE = 6.0
#: the most tables a minute a pace may ask for (beyond, the ladder is unpaced)
MAX_PACE = 600.0


def provisional(games: int, sigma: float, settled_sigma: float) -> bool:
    """Whether an entry's rating is still uncertain (``settled_sigma``: its rating
    system's): it gets its tables at once."""
    return games < PROVISIONAL_GAMES or sigma > settled_sigma


def interval(pace: float) -> timedelta:
    """The time between two settled tables at ``pace`` tables a minute."""
    return timedelta(seconds=60.0 / pace)


def check_pace(pace: float) -> float:
    """A pace is a positive number of tables a minute, at most ``MAX_PACE``."""
    if not 0 < pace <= MAX_PACE:
        raise ValueError(f"a pace is more than 0 and at most {MAX_PACE:g} tables a minute")
    return pace


def describe(pace: dict[str, Any]) -> str:
    """How a ladder plays now, in words, from its pace summary (arena.store.ladder.pace_of)."""
    if pace["mode"] == "unpaced":
        return f"unpaced: {pace['tables']} tables kept in play"
    if pace["mode"] == "provisional":
        uncertain = ", ".join(
            f"{e['bot']} v{e['version']} ({e['games']} games)" for e in pace["provisional"]
        )
        return f"playing at once for the provisional ratings of {uncertain}"
    return f"settled: {pace['pace']:g} tables a minute"
