"""The season's matches: really played ones, re-seated at the competition's tables,
and the rows the platform holds for each once recorded."""

from __future__ import annotations

import random
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from arena.base import aio
from arena.base.states import LogState, MatchStatus
from arena.engine import Ruleset
from arena.fairplay.counting import Tally
from arena.referee import LocalSeat, Referee, RefereeSettings
from arena.referee.log import MatchLog
from arena.store import logs, pairs, results
from sample_bots import NAMES, SAMPLES

#: really played matches the season's rows are drawn from
POOL = 200


@dataclass(frozen=True)
class Template:
    """A really played match: its log, stored bytes, seats' results and tallies."""

    log: MatchLog
    blob: bytes
    seats: list[dict[str, Any]]
    tallies: tuple[Tally, ...]
    referee_ms: float

    @property
    def places(self) -> list[int]:
        return [seat["place"] for seat in self.seats]


def played_pool(rules: Ruleset, size: int, table_size: int, seed: int = 0) -> list[Template]:
    """``size`` matches of the samples, played here by the referee."""
    rng, pool = random.Random(seed), []
    for index in range(size):
        names = [rng.choice(NAMES) for _ in range(table_size)]
        seats = [
            LocalSeat(
                SAMPLES[name](ruleset=rules, players=table_size, seed=f"season/{index}/{s}"),
                f"{name}-{s}",
            )
            for s, name in enumerate(names)
        ]
        referee = Referee(rules, seats, f"season/{index}", RefereeSettings())
        began = time.perf_counter()
        log = aio.run(referee.run())
        referee_ms = (time.perf_counter() - began) * 1000
        pool.append(
            Template(
                log,
                logs.encode(log),
                results.seat_results(log, {}),
                tuple(referee.fairplay.tallies()),
                round(referee_ms, 3),
            )
        )
    return pool


@dataclass
class SeasonMatch:
    """One season match to write: where it sits and when it was played."""

    match_id: int
    tournament_id: int
    index: int
    completion: int
    versions: list[int]
    template: Template
    finished_at: datetime
    seed: str
    worker: str = "season-worker"


def season_rows(
    match: SeasonMatch, ratings: Sequence[tuple[float, float]], cold: bool
) -> dict[str, list[dict[str, Any]]]:
    """The rows the platform holds for a recorded match (the scheduler's, the claim's and
    the recorder's), by table; ``ratings`` by seat after it; ``cold``: its log moved to
    the cold store (else it is still in the database)."""
    played, finished = match.template, match.finished_at
    started = finished - timedelta(milliseconds=played.referee_ms)
    row = {
        "id": match.match_id,
        "tournament_id": match.tournament_id,
        "index": match.index,
        "seed": match.seed,
        "deal_group": None,
        "round": None,
        "status": MatchStatus.DONE.value,
        "attempts": 1,
        "job_id": None,
        "worker": match.worker,
        "claim": None,
        "lease_until": None,
        "queued_at": started,
        "started_at": started,
        "finished_at": finished,
        "completion": match.completion,
        "voided_at": None,
        "void_reason": None,
        "referee_ms": played.referee_ms,
        "error": None,
        "log_state": LogState.COLD.value if cold else None,
    }
    seats = [
        {"match_id": match.match_id, "seat": seat, "bot_version_id": version, **result}
        for seat, (version, result) in enumerate(zip(match.versions, played.seats, strict=True))
    ]
    rated = [
        {
            "tournament_id": match.tournament_id,
            "bot_version_id": version,
            "match_id": match.match_id,
            "completion": match.completion,
            "mu": mu,
            "sigma": sigma,
        }
        for version, (mu, sigma) in zip(match.versions, ratings, strict=True)
    ]
    log = (
        []
        if cold
        else [{"match_id": match.match_id, "data": played.blob, "size": len(played.blob)}]
    )
    return {"matches": [row], "seats": seats, "rating_history": rated, "match_logs": log}


# ------------------------------------------------------------------ running totals
@dataclass
class Totals:
    """What the season's matches add up to: entries and head-to-head (their fair play is
    kept and folded as the recorder's: :func:`write_chunk`)."""

    entries: dict[int, dict[str, int]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(int))
    )
    pairs: dict[tuple[int, int, int], dict[str, int]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(int))
    )

    def add(self, match: SeasonMatch) -> None:
        """The match's additions, as the recorder adds them."""
        played = match.template
        for added in results.entry_additions(match.tournament_id, match.versions, played.seats):
            entry = self.entries[added["version"]]
            entry["games"] += 1
            for column, key in results.ENTRY_ADDITIONS.items():
                entry[column] += added[key]
        for row in pairs.rows(match.tournament_id, match.versions, played.places):
            kept = self.pairs[row["tournament_id"], row["low_version_id"], row["high_version_id"]]
            for name in pairs.COUNTS:
                kept[name] += row[name]


class Walk:
    """Each bot's rating after each of its matches: a walk from the start towards a
    skill of its own, its sigma shrinking as it plays (TrueSkill's shape, not its sums)."""

    def __init__(self, versions: Sequence[int], start: tuple[float, float], seed: int) -> None:
        rng = random.Random(seed)
        self.rng = rng
        self.skill = {v: rng.gauss(start[0], start[1] / 2) for v in versions}
        self.now = {v: start for v in versions}

    def after(self, versions: Sequence[int]) -> list[tuple[float, float]]:
        rated = []
        for version in versions:
            mu, sigma = self.now[version]
            mu += (self.skill[version] - mu) * 0.02 + self.rng.gauss(0, sigma * 0.05)
            sigma = max(0.75, sigma * 0.995)
            self.now[version] = (mu, sigma)
            rated.append((mu, sigma))
        return rated
