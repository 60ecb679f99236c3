"""Choosing a ladder table's opponents: random, weighted towards informative games.

A game teaches the ratings most when its players are close (its outcome is uncertain)
and when their ratings are uncertain themselves; TrueSkill's match quality between two
players says both at once. Opponents are drawn without replacement with that weight,
plus a floor (``EXPLORATION``) so that every pair keeps meeting: a strict "nearest
first" choice locks a small field into the same pairings for ever, and its ratings then
measure who was paired with whom, not who is better (Halite seeded by uncertainty and
sampled opponents for the same reason). Pure: ratings and a random generator in, a
choice out.
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable, Mapping
from typing import TypeVar

from arena.tournament.ratings import ENVIRONMENT

#: the least weight of any opponent, as a share of the best one's
EXPLORATION = 0.2

Key = TypeVar("Key", bound=Hashable)


def quality(a: tuple[float, float], b: tuple[float, float]) -> float:
    """TrueSkill's two-player match quality (1 when equal and certain, towards 0 when
    far apart): ``sqrt(2b²/c²) exp(-(mu_a - mu_b)² / 2c²)``, ``c² = 2b² + sigma_a² +
    sigma_b²``."""
    (mu_a, sigma_a), (mu_b, sigma_b) = a, b
    beta2 = ENVIRONMENT.beta**2
    spread = 2 * beta2 + sigma_a**2 + sigma_b**2
    return math.sqrt(2 * beta2 / spread) * math.exp(-((mu_a - mu_b) ** 2) / (2 * spread))


def weights(
    seed: tuple[float, float], candidates: Mapping[Key, tuple[float, float]]
) -> dict[Key, float]:
    """Each candidate's weight against ``seed``: its match quality plus an uncertainty
    bonus (its sigma against the starting one), never under ``EXPLORATION`` of the best."""
    start = ENVIRONMENT.sigma
    raw = {
        key: quality(seed, rating) * (1 + rating[1] / start) for key, rating in candidates.items()
    }
    floor = EXPLORATION * max(raw.values(), default=0.0)
    return {key: max(value, floor) for key, value in raw.items()}


def draw(
    seed: tuple[float, float],
    candidates: Mapping[Key, tuple[float, float]],
    count: int,
    rng: random.Random,
    team: Mapping[Key, Hashable] | None = None,
) -> list[Key]:
    """``count`` opponents for ``seed`` (fewer if there are not so many), drawn without
    replacement with ``weights``; the same generator state always draws the same. With
    ``team``, a pick's teammates (the same value) are not drawn after it."""
    left = weights(seed, candidates)
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
