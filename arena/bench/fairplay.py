"""Does the collusion report name teams, and only teams, at any number of matches?

In process, 4-player ``classic``, the tables of a round robin (arena.tournament.schedule), the
same counter as the referee's (arena.fairplay.counting) and the report of the platform
(arena.fairplay.report). Bots are of honest styles (``STYLES``: the samples, the README's
truthful bot and ``tracker``, which models each opponent's lies and challenges) and of
the kinds of team in arena.bench.teams. Three figures:

- **honest fields** of 4, 8 and 16 bots (the styles in turn, a different rotation each
  trial) at 60 and at 1,500 matches per bot: the share of reports with any flag, with
  its 95 % binomial interval (the report promises at most ``ALPHA``);
- **fields with a team**: honest bots flagged (a flag naming any bot outside the team),
  at the same lengths;
- **matches to flag** each kind of team (read every ``STEP`` matches the team sat
  together, two members or more), against ``TARGET_TOGETHER``.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from scipy.stats import binomtest

from arena.bench.teams import TEAMS, Tracker, Truthful, member
from arena.engine import Game, Ruleset
from arena.engine.match import Match, places
from arena.fairplay.counting import FairPlayCounter, Tally, match_tallies
from arena.fairplay.report import ALPHA, Finding, report
from arena.game.selfplay import play_deal
from arena.policies import Policy
from arena.tournament.schedule import round_robin
from sample_bots import SAMPLES

RULES = Ruleset.parse("classic")
TABLE = 4
#: the honest styles a field is made of, in turn
STYLES = ("counter", "tracker", "honest", "bluffer", "random", "truthful")
#: the report is read every STEP matches a team played together
STEP = 5
#: a team must be flagged within this many matches together
TARGET_TOGETHER = 120
#: matches per bot of the two lengths measured
LENGTHS = (60, 1500)

#: a match as played: the bots by seat, the counter's tallies (by seat), places by seat
Played = tuple[list[int], list[Tally], list[int]]


def honest_field(size: int, rotation: int) -> list[str]:
    """``size`` bots of the styles in turn, starting at ``rotation``."""
    return [STYLES[(rotation + i) % len(STYLES)] for i in range(size)]


def play(
    field: Sequence[str], matches: int, seed: str, team: Sequence[int] = (), kind: str = ""
) -> list[Played]:
    """Play ``matches`` tables of the field; ``team``: the bot indices of a team of
    ``kind`` (its members play as the kind's classes, their mates being the other
    members seated at the table)."""
    game = Game(RULES, TABLE)
    played = []
    for index, table in enumerate(round_robin(list(range(len(field))), TABLE, matches, seed)):
        policies = [
            _policy(field, table, seat, team, kind, f"{seed}/{index}/{seat}")
            for seat in range(TABLE)
        ]
        counter = FairPlayCounter()
        match = Match(game, seed=f"{seed}/{index}")
        while not match.over:
            deal = match.next_deal()
            play_deal(deal, policies, counter)
            match.record(deal)
        place_of = {s: place for place, group in places(match.ranking()) for s in group}
        played.append((table, counter.tallies(), [place_of[s] for s in range(TABLE)]))
    return played


def _policy(
    field: Sequence[str], table: list[int], seat: int, team: Sequence[int], kind: str, seed: str
) -> Policy:
    bot = table[seat]
    rules: dict[str, Any] = {"ruleset": RULES, "players": TABLE}
    if bot in team:
        mates = [table.index(m) for m in team if m != bot and m in table]
        return member(TEAMS[kind][list(team).index(bot)], mates, seed, **rules)
    style = field[bot]
    if style == "tracker":
        return Tracker(seed=seed, **rules)
    if style == "truthful":
        return Truthful()
    return SAMPLES[style](seed=seed, **rules)


def totals(played: Sequence[Played]) -> list[Tally]:
    """The running totals the store would hold for these matches (bots as versions)."""
    summed: dict[tuple[str, int, int, str], list[int]] = {}
    for table, tallies, seat_places in played:
        for tally in match_tallies(table, seat_places, tallies):
            cell = summed.setdefault(
                (tally.chance, tally.actor, tally.other, tally.stratum), [0, 0]
            )
            cell[0] += tally.chances
            cell[1] += tally.taken
    return [Tally(c, a, o, s, n, k) for (c, a, o, s), (n, k) in summed.items()]


def team_field(kind: str, size: int, rotation: int) -> tuple[list[str], list[int]]:
    """A field of ``size``: the team first (``kind``), honest styles after it."""
    members = len(TEAMS[kind])
    return [kind] * members + honest_field(size - members, rotation), list(range(members))


def matches_to_flag(
    kind: str, size: int, seed: str, limit: int = 4 * TARGET_TOGETHER
) -> dict[str, Any]:
    """Matches together (two members or more at the table) until a pair of the team is
    flagged (None: not within ``limit``), and the flags raised then."""
    field, team = team_field(kind, size, rotation=len(seed))
    played: list[Played] = []
    together = batch = 0
    while together < limit:
        batch += 1
        for entry in play(field, 40, f"{seed}/{batch}", team, kind):  # a round-robin slice
            played.append(entry)
            if sum(member in entry[0] for member in team) < 2:
                continue
            together += 1
            if together % STEP == 0:
                flags = report(totals(played)).flags
                if any(set(f.pair) <= set(team) for f in flags):
                    return {"together": together, "flags": [_flag(f) for f in flags]}
    return {"together": None, "flags": []}


def _flag(finding: Finding) -> dict[str, Any]:
    return {"test": str(finding.test), "pair": list(finding.pair), "p_value": finding.p_value}


def honest_flags(size: int, matches: int, seed: str, rotation: int) -> list[Finding]:
    """The flags of an honest field's report (each a false flag)."""
    return report(totals(play(honest_field(size, rotation), matches, seed))).flags


def accusations(kind: str, size: int, matches: int, seed: str, rotation: int) -> list[Finding]:
    """The flags naming an honest bot in a field with a team of ``kind``."""
    field, team = team_field(kind, size, rotation)
    flags = report(totals(play(field, matches, seed, team, kind))).flags
    return [f for f in flags if not set(f.pair) <= set(team)]


def _rate(hits: int, trials: int) -> dict[str, Any]:
    interval = binomtest(hits, trials, ALPHA).proportion_ci(0.95)
    return {
        "trials": trials,
        "reports_with_a_flag": hits,
        "rate": hits / trials,
        "rate_ci": [interval.low, interval.high],
    }


def _honest_trial(size: int, per_bot: int, trial: int) -> bool:
    matches = per_bot * size // TABLE
    return bool(honest_flags(size, matches, f"honest/{size}/{per_bot}/{trial}", rotation=trial))


def _team_trial(kind: str, size: int, per_bot: int, trial: int) -> list[dict[str, Any]]:
    matches = per_bot * size // TABLE
    seed = f"team/{kind}/{per_bot}/{trial}"
    return [_flag(f) for f in accusations(kind, size, matches, seed, rotation=trial)]


def _flag_trial(kind: str, size: int, trial: int) -> int | None:
    together: int | None = matches_to_flag(kind, size, f"flag/{kind}/{size}/{trial}")["together"]
    return together


def run(
    honest_trials: int = 20,
    team_trials: int = 6,
    flag_trials: int = 8,
    sizes: Sequence[int] = (4, 8, 16),
    lengths: Sequence[int] = LENGTHS,
    team_size: int = 8,
    progress: Callable[[int, int], None] | None = None,
    workers: int = 2,
) -> dict[str, Any]:
    """The three figures (see the module), every trial a job of ``workers`` processes."""
    jobs: list[tuple[tuple[Any, ...], Callable[..., Any], tuple[Any, ...]]] = []
    for size in sizes:
        for per_bot in lengths:
            for t in range(honest_trials):
                jobs.append((("honest", size, per_bot), _honest_trial, (size, per_bot, t)))
    for kind in TEAMS:
        for per_bot in lengths:
            for t in range(team_trials):
                jobs.append((("team", kind, per_bot), _team_trial, (kind, team_size, per_bot, t)))
        for t in range(flag_trials):
            jobs.append((("flag", kind, team_size), _flag_trial, (kind, team_size, t)))
    results: dict[tuple[Any, ...], list[Any]] = {}
    with ProcessPoolExecutor(workers) as pool:
        futures = [(key, pool.submit(job, *args)) for key, job, args in jobs]
        for done, (key, future) in enumerate(futures, 1):
            results.setdefault(key, []).append(future.result())
            if progress is not None:
                progress(done, len(futures))
    return {"alpha": ALPHA, "target": TARGET_TOGETHER, **_figures(results, team_size)}


def _figures(results: dict[tuple[Any, ...], list[Any]], team_size: int) -> dict[str, Any]:
    honest, team, flag = [], [], []
    for key, found in results.items():
        if key[0] == "honest":
            _, size, per_bot = key
            honest.append(
                {"size": size, "per_bot": per_bot, "matches": per_bot * size // TABLE}
                | _rate(sum(found), len(found))
            )
        elif key[0] == "team":
            _, kind, per_bot = key
            team.append(
                {
                    "kind": kind,
                    "size": team_size,
                    "per_bot": per_bot,
                    "matches": per_bot * team_size // TABLE,
                    "trials": len(found),
                    "reports_naming_an_honest_bot": sum(bool(named) for named in found),
                    "examples": [flag for named in found for flag in named][:5],
                }
            )
        else:
            _, kind, size = key
            caught = [n for n in found if n is not None]
            flag.append(
                {
                    "kind": kind,
                    "size": size,
                    "trials": len(found),
                    "caught": len(caught),
                    "median_together": statistics.median(caught) if caught else None,
                    "worst_together": max(caught) if caught else None,
                }
            )
    return {"honest": honest, "team": team, "flag": flag}
