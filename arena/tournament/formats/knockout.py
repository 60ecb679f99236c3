"""Knockout: each table's best ``advance`` bots go on to the next round, down to a final
table.

Round one seats the bots by seeding (their order, or their ratings) spread over as few
tables as hold them, strongest seeds apart (a snake: seeds 1..t at tables 1..t, then
back). A table's order is its duplicate score, ties broken by the rating. A table always
sends at least one bot home (a table of ``advance`` bots or fewer sends all but its
last on); a table of one is a bye. Once the bots left fit one table, that table is the
final, and the format is over when it has played. Standings: the final's order, then
the bots out in later rounds ahead of those out earlier, each round's by their place at
their table and their score. Pure (arena.tournament.formats.rounds).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from arena.tournament.formats.base import NewTournament
from arena.tournament.formats.rounds import Field, InRounds, Standing, rounds_played


class Knockout(InRounds):
    name = "knockout"
    label = "knockout"
    usage = "each table's best --advance go on, down to a final table"
    explained = (
        "Each table plays one deal once per seat rotation; its best go on to the next"
        " round, down to the final table."
    )
    parameters = ("advance",)
    draws = ("bracket", "standings")

    def option_of(self, games: int, advance: int | None) -> int:
        return advance or 1

    def check(self, new: NewTournament) -> None:
        super().check(new)
        if not 1 <= new.advance < new.table_size:
            raise ValueError(
                f"a knockout sends 1 to {new.table_size - 1} of each table on, not {new.advance}"
            )

    def rounds(self, bots: int, table_size: int, option: int) -> int:
        left, rounds = bots, 1
        while left > table_size:
            sizes = _sizes(left, table_size)
            left = sum(_advancing(size, option) for size in sizes)
            rounds += 1
        return rounds

    def next_round(self, field: Field) -> list[list[int]] | None:
        done = rounds_played(field.played)
        if done > 0:
            last = [t for t in field.played if t.round == done - 1]
            if len(last) == 1 and len(last[0].bots) == len(_entrants(field, done - 1)):
                return None  # the final was played
        left = _entrants(field, done)
        if len(left) <= field.table_size:
            return [left] if len(left) >= 2 else None
        tables: list[list[int]] = [[] for _ in _sizes(len(left), field.table_size)]
        for index, bot in enumerate(left):
            lap, at = divmod(index, len(tables))
            tables[at if lap % 2 == 0 else len(tables) - 1 - at].append(bot)
        return [table for table in tables if len(table) >= 2]  # a table of one: a bye

    def standings(self, field: Field) -> list[Standing]:
        bots, played, rating = field.bots, field.played, field.rating
        reached: dict[int, tuple[int, int, float]] = {}  # bot -> (round, place at table, score)
        for table in played:
            for place, bot in enumerate(table.order(rating)):
                reached[bot] = max(
                    reached.get(bot, (-1, 0, 0.0)),
                    (table.round, -place, -table.score[bot]),
                )
        seed = {bot: index for index, bot in enumerate(bots)}
        ranked = sorted(
            bots, key=lambda b: (tuple(-x for x in reached.get(b, (-1, 0, 0.0))), seed[b])
        )
        last_table = {bot: table for table in played for bot in table.bots}  # the latest
        return [
            Standing(
                bot,
                place,
                {
                    "round": reached.get(bot, (-1, 0, 0.0))[0] + 1,
                    # its score at its last table (mean place over the rotations)
                    "score": round(-reached[bot][2], 3) if bot in reached else "-",
                    "tie-break": (
                        "rating" if bot in last_table and last_table[bot].tied(bot) else "-"
                    ),
                },
            )
            for place, bot in enumerate(ranked, start=1)
        ]


def _sizes(bots: int, table_size: int) -> list[int]:
    """The sizes of the fewest tables that hold ``bots`` (they differ by one at most)."""
    tables = math.ceil(bots / table_size)
    small, extra = divmod(bots, tables)
    return [small + 1] * extra + [small] * (tables - extra)


def _advancing(size: int, advance: int) -> int:
    """How many of a table of ``size`` go on: ``advance``, but one at least goes home
    (a table of one, a bye, goes on)."""
    return 1 if size == 1 else min(advance, size - 1)


def _seeded(bots: Sequence[int], rating: Mapping[int, float]) -> list[int]:
    seed = {bot: index for index, bot in enumerate(bots)}
    return sorted(bots, key=lambda b: (-rating.get(b, 0.0), seed[b]))


def _entrants(field: Field, round: int) -> list[int]:
    """The bots in ``round``: every bot by seeding in the first, else those that went on."""
    if round == 0:
        return _seeded(field.bots, field.rating)
    return _advancers(field, round - 1)


def _advancers(field: Field, round: int) -> list[int]:
    """The bots that go on from ``round``: each table's best and the bots that had a bye,
    the best of each table first, then the second of each, ..."""
    tables = [t.order(field.rating) for t in field.played if t.round == round]
    seated = {bot for table in tables for bot in table}
    byes = [b for b in _entrants(field, round) if b not in seated]
    going = [table[: _advancing(len(table), field.option)] for table in tables]
    going += [[b] for b in byes]
    depth = max((len(g) for g in going), default=0)
    return [g[i] for i in range(depth) for g in going if i < len(g)]
