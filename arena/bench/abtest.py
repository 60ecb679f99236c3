"""``arena bench abtest``: the A/B test's error rates and length, by simulation.

Each setting plays a pool of pairs in process, exactly as the platform schedules them
(arena.abtest.pairing: one deal, one table, the tested seat held by each version in
turn; the opponents' seeds the same in both matches). Tests are then run by drawing
pairs from the pool at random until the SPRT decides (a bootstrap: the pool is the
distribution of a pair's outcome):

- **paired**: a drawn pair gives both versions' places on the same deal;
- **unpaired**: the new version's place from one drawn pair, the base's from another
  (each version against the field on its own deals), the same SPRT on the same classes.

For equal versions the pool is made symmetric (each pair also counted with the two
versions swapped): under H0 the two are exchangeable, and the pool's own sampling error
must not pass for a difference. The rate of acceptance there is the false-acceptance
rate (target: at most α within its sampling error).
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from scipy.stats import binomtest

from arena.abtest import sprt
from arena.abtest.pairing import pair_table
from arena.engine import Game, Ruleset
from arena.engine.actions import Action
from arena.engine.match import Match, places
from arena.engine.observation import Observation
from arena.game.selfplay import play_deal
from arena.policies import Policy, RandomLegal

RULES = Ruleset.parse("classic")
TABLE = 4
FIELD = ("honest", "bluffer", "random")
#: a test that has not decided after this many matches counts as capped
CAP = 20_000


class Noisy:
    """A sample bot that plays a random legal action at ``rate`` of its decisions."""

    def __init__(self, name: str, rate: float, seed: str, players: int) -> None:
        from sample_bots import SAMPLES

        self.inner = SAMPLES[name](ruleset=RULES, players=players, seed=seed)
        self.noise = RandomLegal(f"{seed}/noise")
        self.rate = rate
        self.rng = random.Random(f"{seed}/coin")

    def act(self, observation: Observation) -> Action:
        action = self.inner.act(observation)  # always asked: its memory stays whole
        if self.rate and self.rng.random() < self.rate:
            return self.noise.act(observation)
        return action


@dataclass(frozen=True)
class Side:
    """A version in a simulation: a sample bot with a rate of random moves."""

    bot: str
    noise: float = 0.0

    def policy(self, seed: str, players: int) -> Policy:
        return Noisy(self.bot, self.noise, seed, players)

    def __str__(self) -> str:
        return self.bot if not self.noise else f"{self.bot}+{self.noise:.0%} random"


@dataclass(frozen=True)
class Setting:
    name: str
    new: Side
    base: Side
    elo0: float = 0.0
    elo1: float = 25.0

    @property
    def equal(self) -> bool:
        return self.new == self.base


SETTINGS = (
    Setting("equal versions (counter+5% random)", Side("counter", 0.05), Side("counter", 0.05)),
    Setting("equal versions (random)", Side("random"), Side("random")),
    Setting("planted gap: counter vs counter+5% random", Side("counter"), Side("counter", 0.05)),
    Setting("larger gap: counter vs counter+25% random", Side("counter"), Side("counter", 0.25)),
)


def play_pool(setting: Setting, pairs: int, seed: str) -> list[tuple[int, int]]:
    """The tested seat's (new place, base place) for each of ``pairs`` pairs."""
    game = Game(RULES, TABLE)
    field = list(range(len(FIELD)))
    pool = []
    for pair in range(pairs):
        table = pair_table(pair, field, TABLE)
        result = []
        for role, side in (("new", setting.new), ("base", setting.base)):
            policies: list[Policy] = []
            for seat, opponent in enumerate(table.seats):
                if opponent is None:
                    policies.append(side.policy(f"{seed}/{pair}/{role}", TABLE))
                else:
                    policies.append(Side(FIELD[opponent]).policy(f"{seed}/{pair}/{seat}", TABLE))
            match = Match(game, seed=f"{seed}/{pair}", dealer=pair % TABLE)
            while not match.over:
                deal = match.next_deal()
                play_deal(deal, policies)
                match.record(deal)
            place_of = {s: place for place, group in places(match.ranking()) for s in group}
            result.append(place_of[table.tested_seat])
        pool.append((result[0], result[1]))
    return pool


def run_test(
    draw: Callable[[], tuple[int, int]], bounds: sprt.Bounds, cap: int = CAP
) -> tuple[str, int]:
    """One SPRT fed pairs by ``draw`` until it decides or ``cap`` matches; (verdict,
    matches)."""
    counts = [0] * sprt.classes(TABLE)
    pairs = 0
    while 2 * pairs < cap:
        new, base = draw()
        counts[sprt.pair_class(new, base, TABLE)] += 1
        pairs += 1
        outcome = sprt.verdict(sprt.llr(counts, bounds), bounds)
        if outcome is not None:
            return outcome, 2 * pairs
    return "capped", 2 * pairs


def simulate(
    pool: Sequence[tuple[int, int]], setting: Setting, tests: int, seed: str, paired: bool
) -> dict[str, Any]:
    """``tests`` SPRTs drawing from the pool; acceptance rate and matches to decide."""
    rng = random.Random(f"{seed}/{paired}")
    if setting.equal:
        pool = [*pool, *((base, new) for new, base in pool)]
    if paired:

        def draw() -> tuple[int, int]:
            return pool[rng.randrange(len(pool))]
    else:

        def draw() -> tuple[int, int]:
            return pool[rng.randrange(len(pool))][0], pool[rng.randrange(len(pool))][1]

    bounds = sprt.Bounds(setting.elo0, setting.elo1)
    results = [run_test(draw, bounds) for _ in range(tests)]
    accepted = sum(verdict == "accepted" for verdict, _ in results)
    interval = binomtest(accepted, tests).proportion_ci(0.95)
    lengths = [matches for _, matches in results]
    return {
        "tests": tests,
        "accepted": accepted,
        "rate": accepted / tests,
        "rate_ci": [interval.low, interval.high],
        "capped": sum(verdict == "capped" for verdict, _ in results),
        "mean_matches": statistics.fmean(lengths),
        "median_matches": statistics.median(lengths),
    }


def pool_summary(pool: Sequence[tuple[int, int]]) -> dict[str, float]:
    """The pair score's mean and spread, paired and unpaired, and their correlation."""
    scores = [(1 + sprt.seat_score(n, TABLE) - sprt.seat_score(b, TABLE)) / 2 for n, b in pool]
    news = [sprt.seat_score(n, TABLE) for n, _ in pool]
    bases = [sprt.seat_score(b, TABLE) for _, b in pool]
    return {
        "pairs": len(pool),
        "score": statistics.fmean(scores),
        "elo": sprt.elo_of_score(statistics.fmean(scores)),
        "paired_variance": statistics.pvariance(scores),
        "unpaired_variance": (statistics.pvariance(news) + statistics.pvariance(bases)) / 4,
        "correlation": statistics.correlation(news, bases),
    }


def run(
    pairs: int = 3000,
    tests: int = 400,
    seed: str = "abtest-bench",
    settings: Sequence[Setting] = SETTINGS,
    progress: Callable[[str], None] = lambda step: None,
) -> dict[str, Any]:
    figures: dict[str, Any] = {"table_size": TABLE, "field": list(FIELD), "settings": []}
    for setting in settings:
        progress(f"{setting.name}: playing {pairs} pairs")
        pool = play_pool(setting, pairs, f"{seed}/{setting.name}")
        row: dict[str, Any] = {
            "name": setting.name,
            "new": str(setting.new),
            "base": str(setting.base),
            "elo0": setting.elo0,
            "elo1": setting.elo1,
            "pool": pool_summary(pool),
        }
        for paired in (True, False):
            progress(f"{setting.name}: {tests} tests, {'paired' if paired else 'unpaired'}")
            row["paired" if paired else "unpaired"] = simulate(pool, setting, tests, seed, paired)
        row["matches_ratio"] = row["paired"]["mean_matches"] / row["unpaired"]["mean_matches"]
        figures["settings"].append(row)
    return figures
