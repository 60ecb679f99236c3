"""Ladder opponents: weighted towards close and uncertain ratings, never excluding anyone."""

from __future__ import annotations

import random
from collections import Counter

from arena.tournament import matchmaking, ratings

TRUESKILL = ratings.DEFAULT


def quality(a: tuple[float, float], b: tuple[float, float]) -> float:
    return ratings.quality(TRUESKILL, a, b)


def test_quality_is_highest_for_equal_certain_ratings_and_symmetric() -> None:
    equal = quality((25, 1), (25, 1))
    assert equal > quality((25, 1), (30, 1)) > quality((25, 1), (40, 1))
    assert quality((20, 3), (31, 5)) == quality((31, 5), (20, 3))


def test_every_candidate_keeps_a_floor_of_the_best_weight() -> None:
    weights = matchmaking.weights(TRUESKILL, (25, 1), {"near": (25, 1), "far": (60, 1)})
    assert weights["far"] == matchmaking.EXPLORATION * weights["near"]


def test_uncertain_opponents_weigh_more_than_settled_ones_at_the_same_distance() -> None:
    weights = matchmaking.weights(TRUESKILL, (25, 2), {"new": (27, 8), "settled": (27, 1)})
    assert weights["new"] > weights["settled"]


def test_draws_are_without_replacement_and_repeatable() -> None:
    candidates = {name: (25 + i, 2) for i, name in enumerate("abcdef")}
    first = matchmaking.draw(TRUESKILL, (25, 2), candidates, 3, random.Random("k"))
    assert len(set(first)) == 3
    assert matchmaking.draw(TRUESKILL, (25, 2), candidates, 3, random.Random("k")) == first
    assert sorted(matchmaking.draw(TRUESKILL, (25, 2), candidates, 10, random.Random(1))) == list(
        "abcdef"
    )


def test_far_opponents_are_drawn_less_often_but_still_drawn() -> None:
    rng = random.Random(7)
    drawn = Counter(
        matchmaking.draw(TRUESKILL, (25, 1), {"near": (25, 1), "far": (45, 1)}, 1, rng)[0]
        for _ in range(3000)
    )
    assert drawn["near"] > 3 * drawn["far"] > 0
