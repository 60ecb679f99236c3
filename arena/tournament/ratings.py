"""TrueSkill ratings, pure: ``rate(ratings, ranking) -> new ratings``.

One environment holds the constants; ``trueskill``'s built-in maths is used (its
scipy backend is several times slower). Leaderboards sort by ``mu - 3 sigma``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

import trueskill

#: mu 25, sigma 25/3; ties are possible (shared places), so draws have a probability.
ENVIRONMENT = trueskill.TrueSkill(draw_probability=0.10, backend=None)
Rating: TypeAlias = trueskill.Rating  # an alias of the library's class


def new_rating() -> Rating:
    return ENVIRONMENT.create_rating()


def rate(ratings: Sequence[Rating], ranking: Sequence[Sequence[int]]) -> list[Rating]:
    """New ratings of seats ``0..n-1`` after a match ranked ``ranking`` (groups of seats
    sharing a place, best first; forfeits are already last)."""
    place = {seat: index for index, group in enumerate(ranking) for seat in group}
    groups = [(ratings[seat],) for seat in range(len(ratings))]
    rated = ENVIRONMENT.rate(groups, ranks=[place[seat] for seat in range(len(ratings))])
    return [group[0] for group in rated]


def conservative(mu: float, sigma: float) -> float:
    """The leaderboard key of every rating system: ``mu - 3 sigma`` (a rating the
    player is very likely above; a newcomer starts at 0 in TrueSkill)."""
    return mu - 3 * sigma


def ranking_by_score(scores: Sequence[float]) -> list[list[int]]:
    """Indices grouped by equal score, lowest (best) first: summed places of a deal group."""
    levels = sorted(set(scores))
    return [[index for index, score in enumerate(scores) if score == level] for level in levels]
