"""The generalized sequential probability ratio test on paired duplicate deals.

A pair is one deal played twice at the same table, the tested seat held once by the new
version and once by the base. Each match gives the tested seat a score ``(K - place) /
(K - 1)`` in [0, 1] (K players at the table); the pair's score is ``(1 + new - base) / 2``,
one of ``2K - 1`` classes in steps of ``1 / (2K - 2)``; 0.5 when both did the same.

The test (fishtest's GSPRT, generalised from five classes to these): for the expected pair
score ``s`` under each hypothesis (from Elo: ``s = 1 / (1 + 10 ** (-elo / 400))``), the
maximum-likelihood distribution over the classes with mean ``s`` given the counts seen,
and the log-likelihood ratio of the counts under the two. The test stops when the LLR
leaves [log(β / (1 − α)), log((1 − β) / α)]: above, H1 (elo ≥ elo1) is accepted; below,
H0 (elo ≤ elo0). The maths is in docs/abtest.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

#: counts of zero are replaced by this (fishtest does the same): the maximum-likelihood
#: distribution then exists for every mean strictly between the smallest and largest class
REGULARIZE = 1e-3
#: the Elo interval's confidence
CONFIDENCE = 0.95


def classes(table_size: int) -> int:
    """How many pair-score classes a table of ``table_size`` players has."""
    if table_size < 2:
        raise ValueError("a table has at least two players")
    return 2 * table_size - 1


def seat_score(place: int, table_size: int) -> float:
    return (table_size - place) / (table_size - 1)


def pair_class(new_place: int, base_place: int, table_size: int) -> int:
    """The class of a pair from the tested seat's place in each match (1 is first):
    0 when the new version came last and the base first, ``2K - 2`` the reverse."""
    for place in (new_place, base_place):
        if not 1 <= place <= table_size:
            raise ValueError(f"place {place} is not at a table of {table_size}")
    return (table_size - 1) + (base_place - new_place)


def class_scores(table_size: int) -> list[float]:
    """Each class's pair score, in class order."""
    steps = classes(table_size) - 1
    return [index / steps for index in range(steps + 1)]


def score_of_elo(elo: float) -> float:
    return 1 / (1 + 10 ** (-elo / 400))


def elo_of_score(score: float) -> float:
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


@dataclass(frozen=True)
class Bounds:
    """The hypotheses (in Elo) and the LLR bounds their error rates give."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 ({self.elo0}) must be below elo1 ({self.elo1})")
        for name, rate in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0 < rate < 0.5:
                raise ValueError(f"{name} must be between 0 and 0.5, not {rate}")
        for name, elo in (("elo0", self.elo0), ("elo1", self.elo1)):
            if not -1000 < elo < 1000:
                raise ValueError(f"{name} must be between -1000 and 1000, not {elo}")

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)


def _pdf(counts: Sequence[int]) -> tuple[float, list[float]]:
    """The number of pairs and the regularised empirical distribution over classes."""
    total = sum(counts)
    regularised = [count if count > 0 else REGULARIZE for count in counts]
    mass = sum(regularised)
    return total, [count / mass for count in regularised]


def mle(pdf: Sequence[float], scores: Sequence[float], mean: float) -> list[float]:
    """The distribution over the classes closest to ``pdf`` (maximum likelihood) whose
    mean is ``mean``: ``p_i / (1 + x (a_i - mean))``, ``x`` the root of the secular
    equation ``sum p_i (a_i - mean) / (1 + x (a_i - mean)) = 0`` (SciPy's brentq)."""
    low, high = scores[0], scores[-1]
    if not low < mean < high:
        raise ValueError(f"the mean {mean} is outside the classes' range")
    shifted = [score - mean for score in scores]

    def secular(x: float) -> float:
        return sum(p * a / (1 + x * a) for p, a in zip(pdf, shifted, strict=True))

    # SciPy's optimisers take a second to import: only the worker recording a pair
    # needs one, not every process that imports the store (each worker's start, each
    # command's)
    from scipy.optimize import brentq

    edge = 1 - 1e-9  # the root lies strictly inside (-1 / (high - mean), 1 / (mean - low))
    x = brentq(secular, -edge / (high - mean), edge / (mean - low), xtol=1e-12)
    fitted = [p / (1 + x * a) for p, a in zip(pdf, shifted, strict=True)]
    # at the exact root these sum to 1; near a pole the root's last bits leave 1e-9 off,
    # and dividing by the sum moves the mean by less than that
    total = sum(fitted)
    return [p / total for p in fitted]


def llr(counts: Sequence[int], bounds: Bounds) -> float:
    """The log-likelihood ratio of H1 against H0 for these class counts."""
    total, pdf = _pdf(counts)
    if total == 0:
        return 0.0
    scores = [index / (len(counts) - 1) for index in range(len(counts))]
    p0 = mle(pdf, scores, score_of_elo(bounds.elo0))
    p1 = mle(pdf, scores, score_of_elo(bounds.elo1))
    return total * sum(p * math.log(b / a) for p, a, b in zip(pdf, p0, p1, strict=True))


@dataclass(frozen=True)
class Estimate:
    """The pair score's mean and the Elo it means, with its interval."""

    pairs: int
    score: float
    elo: float
    elo_low: float
    elo_high: float


def estimate(counts: Sequence[int]) -> Estimate:
    """The mean pair score and its Elo, with a normal-approximation interval."""
    from scipy.stats import norm

    total = sum(counts)
    if total == 0:
        return Estimate(0, 0.5, 0.0, -math.inf, math.inf)
    scores = [index / (len(counts) - 1) for index in range(len(counts))]
    mean = sum(c * a for c, a in zip(counts, scores, strict=True)) / total
    variance = sum(c * (a - mean) ** 2 for c, a in zip(counts, scores, strict=True)) / total
    half = norm.ppf(0.5 + CONFIDENCE / 2) * math.sqrt(variance / total)
    return Estimate(
        total, mean, elo_of_score(mean), elo_of_score(mean - half), elo_of_score(mean + half)
    )


def verdict(value: float, bounds: Bounds) -> str | None:
    """``accepted`` (H1), ``rejected`` (H0), or None while the test goes on."""
    if value >= bounds.upper:
        return "accepted"
    if value <= bounds.lower:
        return "rejected"
    return None


def pairs_left(value: float, pairs: int, bounds: Bounds) -> int | None:
    """A rough estimate of the pairs still to play: the distance to the bound the LLR is
    heading for, at its mean drift per pair so far (None before it has a direction)."""
    if pairs < 10 or value == 0:
        return None
    drift = value / pairs
    target = bounds.upper if drift > 0 else bounds.lower
    return max(0, math.ceil((target - value) / drift))
