"""How many matches until the leaderboard finds the true order: random seating vs duplicate.

A planted field of known strength order: ``counter``, and copies of it weakened to
play a random legal action with probability 0.3, 0.6 and 1.0; four bots per table,
4-player ``classic``. TrueSkill (mu - 3 sigma) is compared with the true order; the
figure is the first match after which it stays right until the horizon (a trial that
never settles counts as the horizon). Medians (and means, quartiles) over independent
trials; settle times spread widely, so it takes a few dozen trials to pin a median.

- random seating: the seats shuffled and a fresh deal every match, rated per match;
- duplicate (``matches_duplicate``): each deal played once per seat rotation (every bot
  holds every hand) and each deal group rated once, from the bots' summed places over
  its rotations, as the platform rates ``--duplicate`` tournaments;
- duplicate rated per rotation: the same matches, each rated as if independent (judged
  at the end of each group): what the platform deliberately does not do.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable
from typing import Any

from arena.engine import Game, Observation, Ruleset
from arena.engine.match import Match
from arena.game.selfplay import play_deal
from arena.policies import RandomLegal
from arena.tournament import ratings
from arena.tournament.schedule import duplicate
from sample_bots import CounterBot

NOISE = (0.0, 0.3, 0.6, 1.0)  # bot i is weaker than bot i - 1
RULES = Ruleset.parse("classic")


class Weakened:
    """``counter`` that plays a uniformly random legal action with probability ``noise``."""

    def __init__(self, noise: float, seed: str) -> None:
        self.noise = noise
        self.rng = random.Random(seed)
        self.random = RandomLegal(f"{seed}/random")
        self.counter = CounterBot(ruleset=RULES, players=len(NOISE))

    def act(self, observation: Observation):
        choice = self.counter.act(observation)  # it always sees the events (card tracking)
        return self.random.act(observation) if self.rng.random() < self.noise else choice


def _play(game: Game, seed: str, seats: list[int], index: int) -> dict[int, int]:
    """Play one match; return each bot's place index (0 best; equal places share)."""
    policies = [Weakened(NOISE[bot], f"{seed}/{index}/{bot}") for bot in seats]
    match = Match(game, seed)
    deal = match.next_deal()
    play_deal(deal, policies)
    match.record(deal)
    return {seats[seat]: place for place, group in enumerate(match.ranking()) for seat in group}


def _rank(current: list[ratings.Rating], score: dict[int, int]) -> list[ratings.Rating]:
    return ratings.rate(current, ratings.ranking_by_score([score[b] for b in range(len(NOISE))]))


def settle_time(mode: str, trial: int, horizon: int) -> int:
    """Matches until the TrueSkill order equals the true order and stays so."""
    game = Game(RULES, len(NOISE))
    size = len(NOISE)
    if mode == "random":
        rng = random.Random(f"random/{trial}")
        schedule = []
        for index in range(horizon):
            seats = list(range(size))
            rng.shuffle(seats)
            schedule.append((f"t{trial}/m{index}", seats))
    else:
        schedule = [
            (f"t{trial}/g{group}", seats)
            for group, seats in duplicate(range(size), size, horizon, trial)
        ]
    current = [ratings.new_rating() for _ in NOISE]
    settled_at: int | None = None
    summed: dict[int, int] = dict.fromkeys(range(size), 0)
    for index, (seed, seats) in enumerate(schedule[:horizon]):
        place = _play(game, seed, seats, index)
        group_over = mode == "random" or (index + 1) % size == 0
        if mode == "duplicate_group":
            for bot, value in place.items():
                summed[bot] += value
            if group_over:
                current = _rank(current, summed)
                summed = dict.fromkeys(range(size), 0)
        else:
            current = _rank(current, place)
        if not group_over:
            continue
        order = sorted(range(size), key=lambda b: -ratings.conservative(current[b]))
        settled_at = (settled_at or index + 1) if order == list(range(size)) else None
    return settled_at or horizon


def run(
    trials: int = 41, horizon: int = 400, progress: Callable[[str], None] | None = None
) -> dict[str, Any]:
    modes = ("random", "duplicate_match", "duplicate_group")
    results: dict[str, list[int]] = {mode: [] for mode in modes}
    for trial in range(trials):
        for mode in modes:
            if progress is not None:
                progress(f"{mode} trial {trial + 1}/{trials}")
            results[mode].append(settle_time(mode, trial, horizon))
    medians = {mode: statistics.median(values) for mode, values in results.items()}
    means = {mode: statistics.mean(values) for mode, values in results.items()}
    return {
        "matches_random": medians["random"],
        "matches_duplicate": medians["duplicate_group"],
        "matches_duplicate_rated_per_match": medians["duplicate_match"],
        "ratio": round(medians["duplicate_group"] / medians["random"], 2),
        "mean": {mode: round(value, 1) for mode, value in means.items()},
        "ratio_of_means": round(means["duplicate_group"] / means["random"], 2),
        "quartiles": {
            mode: statistics.quantiles(values, n=4) if len(values) > 1 else values * 3
            for mode, values in results.items()
        },
        "trials": trials,
        "horizon": horizon,
        "field": [f"counter, random move with probability {p}" for p in NOISE],
        "per_trial": results,
    }
