"""How many matches until a leaderboard finds the true order, for each rating system
(arena.tournament.rating_systems), with random seating and with duplicate deals.

A planted field of known strength order: ``counter``, and copies of it weakened to
play a random legal action with probability 0.3, 0.6 and 1.0; four bots per table,
4-player ``classic``. Each system's order (mu - 3 sigma) is compared with the true
order; the figure is the first match after which it stays right until the horizon (a
trial that never settles counts as the horizon). Every system rates the same matches:
each trial's are played once. Medians (and means, quartiles) over independent trials;
settle times spread widely, so it takes a few dozen trials to pin a median. The cost of
an update is the median time of one ``record`` (a match, or a deal group).

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
import time
from collections.abc import Callable
from typing import Any

from arena.engine import Game, Observation, Ruleset
from arena.engine.match import Match
from arena.game.selfplay import play_deal
from arena.policies import RandomLegal
from arena.tournament import rating_systems, ratings
from arena.tournament.rating_systems import FieldSystem
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


#: the ways a trial's matches are seated and rated
MODES = ("random", "duplicate_group", "duplicate_match")


def _schedule(mode: str, trial: int, horizon: int) -> list[tuple[str, list[int]]]:
    """The trial's matches: (deal seed, bot of each seat)."""
    size = len(NOISE)
    if mode == "random":
        rng = random.Random(f"random/{trial}")
        schedule = []
        for index in range(horizon):
            seats = list(range(size))
            rng.shuffle(seats)
            schedule.append((f"t{trial}/m{index}", seats))
        return schedule
    return [
        (f"t{trial}/g{group}", seats)
        for group, seats in duplicate(range(size), size, horizon, trial)
    ][:horizon]


def played(trial: int, horizon: int) -> dict[str, list[dict[int, int]]]:
    """Each mode's matches of the trial, played once: each bot's place index per match
    (both duplicate modes rate the same matches)."""
    game = Game(RULES, len(NOISE))
    places = {
        seating: [
            _play(game, seed, seats, index)
            for index, (seed, seats) in enumerate(_schedule(seating, trial, horizon))
        ]
        for seating in ("random", "duplicate")
    }
    return {mode: places["random" if mode == "random" else "duplicate"] for mode in MODES}


def _ranking(score: dict[int, int]) -> list[list[int]]:
    """Bots grouped by equal score, best (lowest) first."""
    return ratings.ranking_by_score([score[bot] for bot in range(len(NOISE))])


def settle_time(
    system: FieldSystem, mode: str, matches: list[dict[int, int]]
) -> tuple[int, list[float], float]:
    """Matches until ``system``'s order equals the true order and stays so; the seconds
    each update took; and the share of the checks in the horizon's second half at which
    the order was right (a system that keeps tracking recent results, as Elo-MMR does,
    may be right most of the time without ever keeping the order)."""
    size = len(NOISE)
    field = system.field(range(size))
    settled_at: int | None = None
    summed: dict[int, int] = dict.fromkeys(range(size), 0)
    spent: list[float] = []
    late: list[bool] = []  # whether the order was right, at each check of the second half
    for index, place in enumerate(matches):
        group_over = mode == "random" or (index + 1) % size == 0
        if mode == "duplicate_group":
            for bot, value in place.items():
                summed[bot] += value
            result = _ranking(summed) if group_over else None
            if group_over:
                summed = dict.fromkeys(range(size), 0)
        else:
            result = _ranking(place)
        if result is not None:
            began = time.perf_counter()
            field.record(result)
            spent.append(time.perf_counter() - began)
        if not group_over:
            continue
        # equal scores count as wrong (a stable sort would keep the planted order)
        order = sorted(range(size), key=lambda b: (-rating_systems.score(field, b), -b))
        right = order == list(range(size))
        settled_at = (settled_at or index + 1) if right else None
        if 2 * (index + 1) > len(matches):
            late.append(right)
    return settled_at or len(matches), spent, sum(late) / len(late) if late else 0.0


def run(
    trials: int = 41,
    horizon: int = 400,
    progress: Callable[[str], None] | None = None,
    systems: list[str] | None = None,
) -> dict[str, Any]:
    chosen = rating_systems.named(systems or list(rating_systems.SYSTEMS))
    results: dict[str, dict[str, list[int]]] = {s.name: {m: [] for m in MODES} for s in chosen}
    rights: dict[str, dict[str, list[float]]] = {s.name: {m: [] for m in MODES} for s in chosen}
    spent: dict[str, list[float]] = {s.name: [] for s in chosen}
    for trial in range(trials):
        if progress is not None:
            progress(f"trial {trial + 1}/{trials}")
        matches = played(trial, horizon)
        for system in chosen:
            for mode in MODES:
                settled, seconds, right = settle_time(system, mode, matches[mode])
                results[system.name][mode].append(settled)
                rights[system.name][mode].append(right)
                spent[system.name] += seconds
    figures = {
        name: _summary(per_mode, spent[name], rights[name]) for name, per_mode in results.items()
    }
    return {
        "trials": trials,
        "horizon": horizon,
        "field": [f"counter, random move with probability {p}" for p in NOISE],
        "systems": figures,
        "fastest": min(
            figures, key=lambda n: (figures[n]["matches_duplicate"], figures[n]["matches_random"])
        ),
    }


def _summary(
    results: dict[str, list[int]], spent: list[float], rights: dict[str, list[float]]
) -> dict[str, Any]:
    medians = {mode: statistics.median(values) for mode, values in results.items()}
    means = {mode: statistics.mean(values) for mode, values in results.items()}
    return {
        #: the mean share of the second half's checks at which the order was right
        "right_late": {mode: round(statistics.mean(v), 3) for mode, v in rights.items()},
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
        "us_per_update": round(statistics.median(spent) * 1e6, 1),
        "per_trial": results,
    }
