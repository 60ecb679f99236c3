"""The rating of record behind one protocol: TrueSkill (the default, its library's own
figures) and OpenSkill, each a pure update of ``(mu, sigma)`` from a match's ranking."""

from __future__ import annotations

import random

import pytest
import trueskill
from openskill.models import PlackettLuce

from arena.tournament import ratings


def _random_matches(seed: int, players: int = 4, count: int = 30) -> list[list[list[int]]]:
    """Rankings of ``players`` seats with shared places now and then."""
    rng = random.Random(seed)
    found = []
    for _ in range(count):
        order = rng.sample(range(players), players)
        if rng.random() < 0.3:
            found.append([[order[0]], [order[1], order[2]], *[[seat] for seat in order[3:]]])
        else:
            found.append([[seat] for seat in order])
    return found


def test_the_default_rating_of_record_is_trueskill_with_its_librarys_figures() -> None:
    assert ratings.DEFAULT.name == "trueskill"
    environment = trueskill.TrueSkill(draw_probability=0.10, backend=None)
    ours = [ratings.DEFAULT.start() for _ in range(4)]
    theirs = [environment.create_rating() for _ in range(4)]
    for ranking in _random_matches(1):
        ours = ratings.DEFAULT.rate(ours, ranking)
        place = {seat: index for index, group in enumerate(ranking) for seat in group}
        rated = environment.rate([(r,) for r in theirs], ranks=[place[s] for s in range(4)])
        theirs = [group[0] for group in rated]
    assert [(r.mu, r.sigma) for r in ours] == [(r.mu, r.sigma) for r in theirs]


def test_openskill_rates_a_match_as_its_library_does() -> None:
    system = ratings.named("openskill")
    model = PlackettLuce()
    ours = [system.start() for _ in range(4)]
    theirs = [model.rating() for _ in range(4)]
    assert (ours[0].mu, ours[0].sigma) == (theirs[0].mu, theirs[0].sigma)
    for ranking in _random_matches(2):
        ours = system.rate(ours, ranking)
        place = {seat: index for index, group in enumerate(ranking) for seat in group}
        rated = model.rate([[r] for r in theirs], ranks=[float(place[s]) for s in range(4)])
        theirs = [team[0] for team in rated]
    for mine, library in zip(ours, theirs, strict=True):
        assert mine.mu == pytest.approx(library.mu, abs=1e-12)
        assert mine.sigma == pytest.approx(library.sigma, abs=1e-12)


@pytest.mark.parametrize("name", list(ratings.SYSTEMS))
def test_every_rating_of_record_lifts_the_winner_and_settles_with_play(name: str) -> None:
    system = ratings.named(name)
    start = system.start()
    current = [start] * 4
    for ranking in [[[0], [1], [2], [3]]] * 3:
        current = system.rate(current, ranking)
    mus = [rating.mu for rating in current]
    assert mus == sorted(mus, reverse=True) and mus[0] > start.mu > mus[3]
    assert all(rating.sigma < start.sigma for rating in current)
    scores = [ratings.conservative(*rating) for rating in current]
    assert scores == sorted(scores, reverse=True)


@pytest.mark.parametrize("name", list(ratings.SYSTEMS))
def test_match_quality_favours_close_and_certain_players_in_every_system(name: str) -> None:
    system = ratings.named(name)
    equal = ratings.quality(system, (25, 1), (25, 1))
    assert (
        equal
        > ratings.quality(system, (25, 1), (30, 1))
        > ratings.quality(system, (25, 1), (40, 1))
    )
    assert equal > ratings.quality(system, (25, 5), (25, 5))
    assert ratings.quality(system, (20, 3), (31, 5)) == ratings.quality(system, (31, 5), (20, 3))


def test_an_unknown_rating_system_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(
        ValueError, match="unknown rating system 'glicko': expected trueskill or openskill"
    ):
        ratings.named("glicko")
