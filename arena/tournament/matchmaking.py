"""Choosing a ladder table's opponents: random, weighted towards informative games.

A game teaches the ratings most when its players are close (its outcome is uncertain)
and when their ratings are uncertain themselves; the match quality between two players
(:func:`arena.tournament.ratings.quality`, under the tournament's rating system) says both
at once. Opponents are drawn without replacement with that weight,
plus a floor (``EXPLORATION``) so that every pair keeps meeting: a strict "nearest
first" choice locks a small field into the same pairings for ever, and its ratings then
measure who was paired with whom, not who is better (Halite seeded by uncertainty and
sampled opponents for the same reason). Pure: ratings and a random generator in, a
choice out.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Mapping
from typing import TypeVar

from arena.tournament.ratings import RatingSystem, quality

#: the least weight of any opponent, as a share of the best one's
EXPLORATION = 0.2

Key = TypeVar("Key", bound=Hashable)


def weights(
    system: RatingSystem,
    seed: tuple[float, float],
    candidates: Mapping[Key, tuple[float, float]],
) -> dict[Key, float]:
    """Each candidate's weight against ``seed``: its match quality plus an uncertainty
    bonus (its sigma against the starting one), never under ``EXPLORATION`` of the best."""
    start = system.start().sigma
    raw = {
        key: quality(system, seed, rating) * (1 + rating[1] / start)
        for key, rating in candidates.items()
    }
    floor = EXPLORATION * max(raw.values(), default=0.0)
    return {key: max(value, floor) for key, value in raw.items()}


def draw(
    system: RatingSystem,
    seed: tuple[float, float],
    candidates: Mapping[Key, tuple[float, float]],
    count: int,
    rng: random.Random,
    team: Mapping[Key, Hashable] | None = None,
) -> list[Key]:
    """``count`` opponents for ``seed`` (fewer if there are not so many), drawn without
    replacement with ``weights`` under ``system``; the same generator state always draws
    the same. With ``team``, a pick's teammates (the same value) are not drawn after it."""
    left = weights(system, seed, candidates)
    chosen: list[Key] = []
    while left and len(chosen) < count:
        keys = list(left)
        pick = rng.choices(keys, weights=[left[k] for k in keys])[0]
        chosen.append(pick)
        del left[pick]
        if team is not None and pick in team:
            for key in [k for k in left if team.get(k) == team[pick]]:
                del left[key]
    return chosen
