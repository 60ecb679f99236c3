"""Formats played in rounds (Swiss, knockout): the base of their format objects. Pure:
the entries, their ratings and the tables played so far in; the next round's tables, or
the standings, out.

A round is a set of tables played at once; each table is one deal played once per seat
rotation (every bot holds every hand), and a bot's result at a table is its mean place
over the rotations played (lower is better: the duplicate score). The platform
(arena.store.rounds) seats a round when the last one is over and asks the format again;
``None`` means the format is over.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass

from arena.tournament.formats.base import Format, NewTournament, Plays, Seating


@dataclass(frozen=True)
class TableResult:
    """One table of a round that is over."""

    round: int
    #: the bots by seat (of the table's first rotation)
    bots: tuple[int, ...]
    #: each bot's mean place over the rotations played (0 is first; lower is better)
    score: Mapping[int, float]

    def beaten(self, bot: int) -> float:
        """How many of the table's other bots ``bot`` finished ahead of (a tie: half)."""
        mine = self.score[bot]
        others = [s for b, s in self.score.items() if b != bot]
        return sum(1.0 if s > mine else 0.5 if s == mine else 0.0 for s in others)

    def order(self, rating: Mapping[int, float]) -> list[int]:
        """The table's bots best first: by score, then the higher rating, then seat."""
        return sorted(self.bots, key=lambda b: (self.score[b], -rating.get(b, 0.0)))

    def places(self, rating: Mapping[int, float]) -> dict[int, int]:
        """Each bot's place at the table, tied scores sharing one (1, 1, 3)."""
        order = self.order(rating)
        return {b: 1 + sum(self.score[o] < self.score[b] for o in order) for b in order}

    def tied(self, bot: int) -> bool:
        """Whether another bot of the table had ``bot``'s score (the rating then ordered
        them)."""
        return any(s == self.score[bot] for b, s in self.score.items() if b != bot)


@dataclass(frozen=True)
class Standing:
    bot: int
    place: int  # 1 is first
    #: what placed it, in the format's words (points, round reached, mean score), and
    #: ``tie-break`` when its figures equal a neighbour's: what ordered them (``rating``,
    #: ``seed``), else ``-``
    figures: Mapping[str, float | int | str]


@dataclass(frozen=True)
class Field:
    """What a format in rounds decides from: the bots in their seeding order, the tables
    played so far, the table size, its parameter (a Swiss tournament's rounds, a
    knockout's advance) and each bot's leaderboard score."""

    bots: Sequence[int]
    played: Sequence[TableResult]
    table_size: int
    option: int
    rating: Mapping[int, float]


class InRounds(Format):
    """A format played in rounds, each table one deal played once per seat rotation."""

    unit = "rounds"
    plays = Plays.IN_ROUNDS
    draws = ("rounds", "standings")

    def option_of(self, games: int, advance: int | None) -> int:
        """Its parameter, from a tournament's columns (a Swiss tournament's rounds, a
        knockout's advance)."""
        raise NotImplementedError

    def rounds(self, bots: int, table_size: int, option: int) -> int:
        """How many rounds the format plays for ``bots``."""
        raise NotImplementedError

    def next_round(self, field: Field) -> list[list[int]] | None:
        """The next round's tables (bots by seat), or None once the format is over."""
        raise NotImplementedError

    def standings(self, field: Field) -> list[Standing]:
        """Every bot, best first, with its place."""
        raise NotImplementedError

    def check(self, new: NewTournament) -> None:
        """Refuse a field it cannot play (a ``ValueError`` says why)."""
        new.check_fills_a_table()

    def seating(self, new: NewTournament) -> Seating:
        """Nothing now: each round is seated when the last is over (arena.store.rounds);
        a table is one deal, played once per seat rotation."""
        self.check(new)
        bots = len(new.bots)
        rounds = self.rounds(bots, new.table_size, self.option_of(new.games, new.advance))
        most = rounds * bots  # a round seats each bot once, a rotation per seat
        if new.games_limit is not None and most > new.games_limit:
            raise ValueError(
                f"a private tournament has at most {new.games_limit} games: {rounds} rounds"
                f" of {bots} bots play up to {most}"
            )
        return Seating([], rounds, True)


def tie_breaks(
    ranked: Sequence[int], figures: Callable[[int], Hashable], rating: Mapping[int, float]
) -> dict[int, str]:
    """For each bot ranked next to one with the same ``figures``: what ordered them (the
    higher ``rating``, or the seed when the ratings tie too)."""
    decided: dict[int, str] = {}
    for ahead, behind in itertools.pairwise(ranked):
        if figures(ahead) == figures(behind):
            rule = "rating" if rating.get(ahead, 0.0) != rating.get(behind, 0.0) else "seed"
            decided.setdefault(ahead, rule)
            decided[behind] = rule
    return decided


def rounds_played(played: Sequence[TableResult]) -> int:
    return 1 + max((table.round for table in played), default=-1)


def mean_score(bot: int, played: Sequence[TableResult]) -> float:
    """The bot's mean duplicate score over its tables (0 when it played none)."""
    scores = [table.score[bot] for table in played if bot in table.score]
    return sum(scores) / len(scores) if scores else 0.0
