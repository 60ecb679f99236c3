"""Rating systems as strategies: TrueSkill as the rating of record, OpenSkill and
Elo-MMR beside it, each ordering a field by its conservative rating."""

from __future__ import annotations

import random

import pytest

from arena.tournament import rating_systems, ratings


@pytest.mark.parametrize("name", list(ratings.SYSTEMS))
def test_a_rating_of_record_in_the_benchmark_gives_the_platforms_own_figures(name: str) -> None:
    system = ratings.named(name)
    field = rating_systems.SYSTEMS[name].field(["a", "b", "c", "d"])
    current = [system.start() for _ in range(4)]
    rng = random.Random(7)
    for _ in range(20):
        order = rng.sample(range(4), 4)
        ranking = [[order[0]], [order[1], order[2]], [order[3]]]  # a shared place
        current = system.rate(current, ranking)
        field.record([["abcd"[seat] for seat in group] for group in ranking])
    for seat, player in enumerate("abcd"):
        assert field.rating(player) == (current[seat].mu, current[seat].sigma)


@pytest.mark.parametrize("name", list(rating_systems.SYSTEMS))
def test_a_system_ranks_the_player_who_always_wins_first_and_ties_equal(name: str) -> None:
    field = rating_systems.SYSTEMS[name].field(["best", "tied", "twin", "worst"])
    start = field.rating("best")
    for _ in range(12):
        field.record([["best"], ["tied", "twin"], ["worst"]])
    scores = {p: rating_systems.score(field, p) for p in ("best", "tied", "twin", "worst")}
    # (TrueSkill's update of tied players depends a little on their order: 0.003 here)
    assert scores["tied"] == pytest.approx(scores["twin"], abs=0.01)
    assert scores["best"] > max(scores["tied"], scores["twin"])
    assert min(scores["tied"], scores["twin"]) > scores["worst"]
    assert field.rating("best")[0] > start[0] and field.rating("best")[1] < start[1]


def test_the_conservative_score_is_mu_less_three_sigma_for_every_system() -> None:
    for system in rating_systems.SYSTEMS.values():
        field = system.field([1, 2])
        field.record([[1], [2]])
        mu, sigma = field.rating(1)
        assert rating_systems.score(field, 1) == pytest.approx(mu - 3 * sigma)


def test_an_unknown_rating_system_is_refused_with_the_known_ones_named() -> None:
    with pytest.raises(ValueError, match=r"unknown rating system glicko \(known: trueskill"):
        rating_systems.named(["trueskill", "glicko"])
    assert [s.name for s in rating_systems.named(["elo-mmr"])] == ["elo-mmr"]


def test_the_ranking_bench_counts_a_kept_order_and_how_often_a_tracking_one_is_right() -> None:
    from arena.bench.ranking import settle_time

    planted = [{0: 0, 1: 1, 2: 2, 3: 3}] * 40  # the true order, every match
    settled, spent, right = settle_time(rating_systems.SYSTEMS["trueskill"], "random", planted)
    assert settled == 1 and right == 1.0 and len(spent) == 40
    swapping = [{0: 0, 1: 1, 2: 2, 3: 3}, {0: 1, 1: 0, 2: 2, 3: 3}] * 20  # the top two trade
    settled, _, right = settle_time(rating_systems.SYSTEMS["elo-mmr"], "random", swapping)
    assert settled == 40, "never kept: counted as the horizon"
    assert 0 < right < 1, "right at some checks of the second half, wrong at others"
