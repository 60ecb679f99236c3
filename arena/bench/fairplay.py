"""Does the collusion report catch a planted team, and keep quiet about honest fields?

In process, 4-player ``classic``, the tables of a round robin (arena.tournament.schedule), the
same counter as the referee's (arena.fairplay.counting) and the report of the platform
(arena.fairplay.report):

- **planted**: a field of honest samples (``counter``, ``honest``, ``bluffer``,
  ``random``, repeated to the field's size) where two seats are a team: a *partner*
  (``counter`` that never challenges its teammate) and a *teammate* (``counter`` that
  lies half the time it plays before anyone but its partner, and tells the partner the
  truth whenever it can). Figure: the matches the pair sat together until the report
  flags it (checked every ``STEP`` matches together), per trial.
- **honest fields** of 4, 8 and 16 bots (the samples, repeated): the share of reports
  with any flag, which Holm's control keeps at or under ``ALPHA`` (with its sampling
  error: a binomial interval over the trials).
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable, Sequence
from typing import Any

from scipy.stats import binomtest

from arena.engine import Action, Game, Observation, Play, Ruleset
from arena.engine.match import Match, places
from arena.fairplay.counting import FairPlayCounter, Tally, match_tallies
from arena.fairplay.report import ALPHA, Finding, report
from arena.game.selfplay import play_deal
from arena.policies import Policy
from arena.sdk import MatchInfo
from arena.sdk.helpers import cheapest_lie, truthful_play
from arena.tournament.schedule import round_robin
from sample_bots import SAMPLES, CounterBot

RULES = Ruleset.parse("classic")
TABLE = 4
HONEST_FIELD = ("counter", "honest", "bluffer", "random")
#: the report is read every STEP matches the planted pair played together
STEP = 10
#: the planted pair must be flagged within this many matches together
TARGET_TOGETHER = 120


class _Colluder(CounterBot):
    """``counter`` that knows its mate: a seat (in process), or a registered name it
    finds among the players when a match starts (as a real team would: names are public)."""

    def __init__(self, mate: int | str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.mate_name = mate if isinstance(mate, str) else None
        self.mate = mate if isinstance(mate, int) else -1

    def on_match_start(self, match: MatchInfo) -> None:
        super().on_match_start(match)
        if self.mate_name is not None:
            named = [
                seat
                for seat, name in enumerate(match.players)
                if name.split(" ")[0] == self.mate_name
            ]
            self.mate = named[0] if named else -1


class Partner(_Colluder):
    """``counter`` that never challenges its teammate's groups (it plays on instead)."""

    name = "partner"

    def _call(self, observation: Observation, tracker: Any) -> Action | None:
        live = observation.live
        if live is not None and live.author == self.mate:
            return None
        return super()._call(observation, tracker)


class Teammate(_Colluder):
    """``counter`` that lies freely (half its plays) when anyone but its partner responds,
    and tells the partner the truth whenever it can."""

    name = "teammate"

    def __init__(self, mate: int | str, seed: str | None = None, **kwargs: Any) -> None:
        super().__init__(mate, **kwargs)
        self.rng = random.Random(seed)

    def act(self, observation: Observation) -> Action:
        action = super().act(observation)
        legal = observation.legal
        if legal is None or legal.play is None or not isinstance(action, Play):
            return action
        if _next_seat(observation) == self.mate:
            return truthful_play(legal.play, observation.hand, action.rank) or action
        if self.rng.random() < 0.5:
            return cheapest_lie(observation.hand, action.rank)
        return action


def _next_seat(observation: Observation) -> int:
    players = len(observation.active)
    for step in range(1, players):
        seat = (observation.seat + step) % players
        if observation.active[seat]:
            return seat
    return observation.seat


def play(
    field: Sequence[str], matches: int, seed: str, team: tuple[int, int] | None = None
) -> list[tuple[list[int], list[Tally], list[int]]]:
    """Play ``matches`` tables of the field; per match: the bots by seat, the tallies (by
    seat) and the places by seat. ``team``: (partner, teammate) bot indices."""
    game = Game(RULES, TABLE)
    played = []
    for index, table in enumerate(round_robin(list(range(len(field))), TABLE, matches, seed)):
        policies = [
            _policy(field, table, seat, team, f"{seed}/{index}/{seat}") for seat in range(TABLE)
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
    field: Sequence[str],
    table: list[int],
    seat: int,
    team: tuple[int, int] | None,
    seed: str,
) -> Policy:
    bot = table[seat]
    if team is not None and bot in team and all(member in table for member in team):
        partner, teammate = team
        if bot == partner:
            return Partner(table.index(teammate), ruleset=RULES, players=TABLE, seed=seed)
        return Teammate(table.index(partner), seed, ruleset=RULES, players=TABLE)
    return SAMPLES[field[bot]](ruleset=RULES, players=TABLE, seed=seed)


def totals(played: Sequence[tuple[list[int], list[Tally], list[int]]]) -> list[Tally]:
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


def planted_trial(size: int, seed: str, limit: int = 4 * TARGET_TOGETHER) -> dict[str, Any]:
    """Matches together until the planted pair (bots 0 and 1) is flagged (None: never,
    within ``limit`` matches together), and the flags raised then."""
    team = (0, 1)
    field = ["counter", "counter", *[HONEST_FIELD[i % 4] for i in range(size - 2)]]
    played: list[tuple[list[int], list[Tally], list[int]]] = []
    together = 0
    batch = 0
    while together < limit:
        batch += 1
        more = play(field, 40, f"{seed}/{batch}", team)  # a round-robin slice
        for entry in more:
            played.append(entry)
            if all(member in entry[0] for member in team):
                together += 1
                if together % STEP == 0:
                    flags = [f for f in report(totals(played)).flags if set(f.pair) == set(team)]
                    if flags:
                        return {"together": together, "flags": [_flag(f) for f in flags]}
    return {"together": None, "flags": []}


def honest_trial(size: int, matches: int, seed: str) -> list[Finding]:
    field = [HONEST_FIELD[i % 4] for i in range(size)]
    return report(totals(play(field, matches, seed))).flags


def _flag(finding: Finding) -> dict[str, Any]:
    return {"test": str(finding.test), "pair": list(finding.pair), "p_value": finding.p_value}


def run(
    trials: int = 10,
    honest_trials: int = 40,
    sizes: Sequence[int] = (4, 8, 16),
    matches_per_bot: int = 60,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Both halves of the bench; an honest field of N bots plays
    ``matches_per_bot * N / 4`` matches (each bot about ``matches_per_bot``)."""
    total = trials * 2 + honest_trials * len(sizes)
    done = 0

    def step() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total)

    planted: dict[str, Any] = {}
    for size in (4, 8):
        found = []
        for trial in range(trials):
            found.append(planted_trial(size, f"planted/{size}/{trial}")["together"])
            step()
        caught = [n for n in found if n is not None]
        planted[str(size)] = {
            "trials": trials,
            "caught": len(caught),
            "median_together": statistics.median(caught) if caught else None,
            "worst_together": max(caught) if caught else None,
            "target": TARGET_TOGETHER,
        }
    honest: dict[str, Any] = {}
    for size in sizes:
        flagged = 0
        matches = matches_per_bot * size // TABLE
        for trial in range(honest_trials):
            flagged += bool(honest_trial(size, matches, f"honest/{size}/{trial}"))
            step()
        interval = binomtest(flagged, honest_trials, ALPHA).proportion_ci(0.95)
        honest[str(size)] = {
            "trials": honest_trials,
            "matches": matches,
            "reports_with_a_flag": flagged,
            "rate": flagged / honest_trials,
            "rate_ci": [interval.low, interval.high],
            "alpha": ALPHA,
            "within": interval.low <= ALPHA,
        }
    return {"planted": planted, "honest": honest}
