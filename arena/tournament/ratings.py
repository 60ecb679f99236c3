"""The rating of record, pure: a :class:`RatingSystem` turns a match's ranking and its
players' ``(mu, sigma)`` into new ones.

Every tournament names its system (TrueSkill by default; a competition may open on
OpenSkill); recording, duplicate deal groups, matchmaking, pacing and series all go
through it. Both systems here keep a Gaussian ``(mu, sigma)`` per player on the same
scale (mu 25, sigma 25/3, beta 25/6), so entries store the same two numbers whatever the
system; leaderboards sort every system by ``mu - 3 sigma`` (:func:`conservative`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple, Protocol

import trueskill

if TYPE_CHECKING:  # openskill is loaded only when a tournament rates with it
    from openskill.models import PlackettLuce

#: a match's result by seat: groups of seats sharing a place, best first
Ranking = Sequence[Sequence[int]]


class Rating(NamedTuple):
    mu: float
    sigma: float


class RatingSystem(Protocol):
    """A rating of record: a starting rating, the update after a match, and what
    matchmaking and pacing read from a rating."""

    #: the registered name, as a tournament stores it
    name: str
    #: the name people read
    label: str
    #: the performance spread of one match (beta): how far apart two players' mu must
    #: be before the better one is clearly favoured
    beta: float
    #: the sigma at or under which an entry's rating counts as settled (arena.tournament.pacing)
    settled_sigma: float

    def start(self) -> Rating:
        """A newcomer's rating."""

    def rate(self, ratings: Sequence[Rating], ranking: Ranking) -> list[Rating]:
        """New ratings of seats ``0..n-1`` after a match ranked ``ranking`` (forfeits
        already last)."""


class TrueSkill:
    """Microsoft's TrueSkill (``trueskill``, its built-in maths: the scipy backend is
    several times slower), draws possible (shared places)."""

    name = "trueskill"
    label = "TrueSkill"
    settled_sigma = 1.0  # sigma settles near 0.65-0.8 at tables of 2 to 8

    def __init__(self) -> None:
        self._environment = trueskill.TrueSkill(draw_probability=0.10, backend=None)
        self.beta = self._environment.beta

    def start(self) -> Rating:
        rating = self._environment.create_rating()
        return Rating(rating.mu, rating.sigma)

    def rate(self, ratings: Sequence[Rating], ranking: Ranking) -> list[Rating]:
        place = _places(ranking)
        groups = [(trueskill.Rating(*rating),) for rating in ratings]
        rated = self._environment.rate(groups, ranks=[place[seat] for seat in range(len(groups))])
        return [Rating(group[0].mu, group[0].sigma) for group in rated]


class OpenSkill:
    """Weng–Lin Bayesian ratings with the Plackett–Luce model (``openskill``), on
    TrueSkill's scale. Its sigma falls more slowly than TrueSkill's (near 3 after a
    hundred 4-player matches, 2 after four hundred), so it counts as settled at 3."""

    name = "openskill"
    label = "OpenSkill"
    settled_sigma = 3.0

    def __init__(self) -> None:
        self._model: PlackettLuce | None = None
        self.beta = 25 / 6

    @property
    def model(self) -> PlackettLuce:
        if self._model is None:
            from openskill.models import PlackettLuce

            self._model = PlackettLuce()
        return self._model

    def start(self) -> Rating:
        return Rating(25.0, 25 / 3)

    def rate(self, ratings: Sequence[Rating], ranking: Ranking) -> list[Rating]:
        model, place = self.model, _places(ranking)
        teams = [[model.rating(mu=mu, sigma=sigma)] for mu, sigma in ratings]
        rated = model.rate(teams, ranks=[float(place[seat]) for seat in range(len(teams))])
        return [Rating(team[0].mu, team[0].sigma) for team in rated]


def _places(ranking: Ranking) -> dict[int, int]:
    return {seat: index for index, group in enumerate(ranking) for seat in group}


#: every rating of record by its registered name
SYSTEMS: dict[str, RatingSystem] = {system.name: system for system in (TrueSkill(), OpenSkill())}
#: the platform's default rating of record
DEFAULT = SYSTEMS["trueskill"]


def named(name: str) -> RatingSystem:
    """The rating system registered as ``name``; ValueError lists the known ones."""
    try:
        return SYSTEMS[name]
    except KeyError:
        raise ValueError(
            f"unknown rating system {name!r}: expected {' or '.join(SYSTEMS)}"
        ) from None


def quality(system: RatingSystem, a: tuple[float, float], b: tuple[float, float]) -> float:
    """Two players' match quality under ``system`` (1 when equal and certain, towards 0
    when far apart; TrueSkill's formula, for any Gaussian system):
    ``sqrt(2b²/c²) exp(-(mu_a - mu_b)² / 2c²)``, ``c² = 2b² + sigma_a² + sigma_b²``."""
    (mu_a, sigma_a), (mu_b, sigma_b) = a, b
    beta2 = system.beta**2
    spread = 2 * beta2 + sigma_a**2 + sigma_b**2
    return math.sqrt(2 * beta2 / spread) * math.exp(-((mu_a - mu_b) ** 2) / (2 * spread))


def conservative(mu: float, sigma: float) -> float:
    """The leaderboard key of every rating system: ``mu - 3 sigma`` (a rating the
    player is very likely above; a newcomer starts at 0 in TrueSkill)."""
    return mu - 3 * sigma


def ranking_by_score(scores: Sequence[float]) -> list[list[int]]:
    """Indices grouped by equal score, lowest (best) first: summed places of a deal group."""
    levels = sorted(set(scores))
    return [[index for index, score in enumerate(scores) if score == level] for level in levels]
