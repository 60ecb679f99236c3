"""A series of matches between the same bots at one table, with per-bot figures.

Seats come from :func:`arena.tournament.schedule.round_robin`: over every ``n!`` games each bot
sits in every seat, and after every other bot, equally often. Ratings are the rating
system's (TrueSkill by default) over the series, in game order.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.engine import Ruleset
from arena.engine.match import places
from arena.referee import GrpcSeat, Referee, RefereeSettings, Seat
from arena.referee.log import MatchLog, StepKind
from arena.referee.referee import percentile
from arena.referee.transport import SessionPool
from arena.tournament import ratings, seeds
from arena.tournament.schedule import round_robin


@dataclass
class BotFigures:
    name: str
    games: int = 0
    places: Counter[int] = field(default_factory=Counter)
    forfeits: int = 0
    timeouts: int = 0
    illegal: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    rating: ratings.Rating = field(default_factory=ratings.DEFAULT.start)
    forfeit_reasons: Counter[str] = field(default_factory=Counter)
    #: each forfeit's sentence ("kind: detail"), how many times
    forfeit_details: Counter[str] = field(default_factory=Counter)

    @property
    def mean_place(self) -> float:
        return sum(p * n for p, n in self.places.items()) / self.games if self.games else 0.0

    def latency(self, which: str) -> float | None:
        if not self.latencies_ms:
            return None
        ordered = sorted(self.latencies_ms)
        return sum(ordered) / len(ordered) if which == "mean" else percentile(ordered, 0.99)

    def to_dict(self, players: int) -> dict[str, Any]:
        return {
            "bot": self.name,
            "games": self.games,
            "mean_place": round(self.mean_place, 4),
            "places": {str(p): self.places.get(p, 0) for p in range(1, players + 1)},
            "forfeits": self.forfeits,
            "forfeit_reasons": dict(self.forfeit_reasons),
            "forfeit_details": dict(self.forfeit_details),
            "timeouts": self.timeouts,
            "illegal": self.illegal,
            "latency_ms_mean": _rounded(self.latency("mean")),
            "latency_ms_p99": _rounded(self.latency("p99")),
            "mu": round(self.rating.mu, 3),
            "sigma": round(self.rating.sigma, 3),
        }


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


SeatFactory = Callable[[int, str], Seat]  # (bot index, bot name) -> a new seat for one match


async def run_series(
    names: Sequence[str],
    seat_factory: SeatFactory,
    ruleset: Ruleset,
    games: int,
    key: str,
    settings: RefereeSettings,
    logs: Path | None = None,
    progress: Callable[[int], None] | None = None,
    system: ratings.RatingSystem = ratings.DEFAULT,
) -> list[BotFigures]:
    """Play ``games`` matches, seats rotating; each match dealt from a seed keyed by ``key``
    (arena.tournament.seeds: no match's deals can be told from another's log without the key)."""
    count = len(names)
    figures = [BotFigures(name, rating=system.start()) for name in names]
    if logs is not None:
        logs.mkdir(parents=True, exist_ok=True)
    tables = round_robin(list(range(count)), count, games, key)
    for game, order in enumerate(tables):  # order: seat -> bot index
        seats = [seat_factory(bot, names[bot]) for bot in order]
        seed = seeds.match_seed(key, seeds.game_place(game))
        log = await Referee(ruleset, seats, seed, settings).run()
        if logs is not None:
            (logs / f"game-{game:05d}.json").write_text(json.dumps(log.to_dict()))
        _record(figures, order, log, system)
        if progress is not None:
            progress(game + 1)
    return figures


def grpc_seats(endpoints: Sequence[str], pool: SessionPool | None = None) -> SeatFactory:
    """Seats for bots at ``endpoints``; with a pool, matches share one channel per bot."""
    return lambda bot, name: GrpcSeat(endpoints[bot], name, pool=pool)


def _record(
    figures: list[BotFigures], order: list[int], log: MatchLog, system: ratings.RatingSystem
) -> None:
    ranking = log.result.ranking
    for place, group in places(ranking):
        for seat in group:
            bot = figures[order[seat]]
            bot.games += 1
            bot.places[place] += 1
    for entry in log.seats:
        bot = figures[order[entry.seat]]
        bot.timeouts += entry.strikes
        bot.illegal += entry.illegal - entry.strikes
        bot.latencies_ms.extend(_latencies(log, entry.seat))
        if entry.forfeit is not None:
            bot.forfeits += 1
            bot.forfeit_reasons[entry.forfeit.kind] += 1
            bot.forfeit_details[f"{entry.forfeit.kind}: {entry.forfeit.detail}"] += 1
    current = [figures[order[seat]].rating for seat in range(len(order))]
    for seat, rating in enumerate(system.rate(current, ranking)):
        figures[order[seat]].rating = rating


def _latencies(log: MatchLog, seat: int) -> list[float]:
    return [
        step.latency_ms
        for deal in log.deals
        for step in deal.steps
        if step.seat == seat
        and step.kind in (StepKind.ACT, StepKind.TIMEOUT)
        and step.latency_ms is not None
    ]


async def run_grpc_series(
    names: Sequence[str],
    endpoints: Sequence[str],
    ruleset: Ruleset,
    games: int,
    key: str,
    settings: RefereeSettings,
    logs: Path | None = None,
    progress: Callable[[int], None] | None = None,
    system: ratings.RatingSystem = ratings.DEFAULT,
) -> list[BotFigures]:
    """:func:`run_series` between bots at ``endpoints``, one channel per bot for the series."""
    pool = SessionPool()
    try:
        return await run_series(
            names,
            grpc_seats(endpoints, pool),
            ruleset,
            games,
            key,
            settings,
            logs,
            progress,
            system,
        )
    finally:
        await pool.close()
