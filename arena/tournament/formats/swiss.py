"""Swiss rounds: each round seats bots of similar standing together, never a table
already played where another seating avoids it.

A bot earns a point for each bot of its table it finished ahead of (by the table's
duplicate score; a tie is half a point). Standings: points, then the mean duplicate
score, then the rating. When the bots do not fill whole tables, the lowest standing
among those with the fewest byes sits the round out and earns the table's average
points. Pure (arena.tournament.formats.rounds).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from arena.tournament.formats.rounds import (
    Field,
    InRounds,
    Standing,
    TableResult,
    mean_score,
    rounds_played,
    tie_breaks,
)


class Swiss(InRounds):
    name = "swiss"
    label = "Swiss"
    usage = "--rounds rounds of tables of similar standing"
    explained = (
        "Swiss: each round seats bots of similar standing together; a point for each bot"
        " of the table finished ahead of (a tie: half)."
    )
    parameters = ("rounds",)

    def games_from(self, games: int, rounds: int) -> int:
        return rounds

    def option_of(self, games: int, advance: int | None) -> int:
        return games

    def rounds(self, bots: int, table_size: int, option: int) -> int:
        return option

    def next_round(self, field: Field) -> list[list[int]] | None:
        done, size = rounds_played(field.played), field.table_size
        if done >= field.option:
            return None
        order = [s.bot for s in self.standings(field)]
        sitting = _byes(order, field.played, done, len(order) % size)
        seated = [bot for bot in order if bot not in sitting]
        tables = [seated[i : i + size] for i in range(0, len(seated), size)]
        return _unrepeated(tables, {frozenset(t.bots) for t in field.played})

    def standings(self, field: Field) -> list[Standing]:
        bots, played, rating = field.bots, field.played, field.rating
        points = _points(bots, played)
        scores = {bot: mean_score(bot, played) for bot in bots}
        seed = {bot: index for index, bot in enumerate(bots)}
        ranked = sorted(bots, key=lambda b: (-points[b], scores[b], -rating.get(b, 0.0), seed[b]))
        decided = tie_breaks(ranked, lambda b: (points[b], scores[b]), rating)
        figures: dict[int, dict[str, float | int | str]] = {
            bot: {
                "points": points[bot],
                "score": round(scores[bot], 3),
                "tables": _tables(bot, played),
                "tie-break": decided.get(bot, "-"),
            }
            for bot in bots
        }
        return [Standing(bot, place, figures[bot]) for place, bot in enumerate(ranked, start=1)]


def _points(bots: Sequence[int], played: Sequence[TableResult]) -> dict[int, float]:
    """Points from the tables played, and a bye's share for each round sat out."""
    points = dict.fromkeys(bots, 0.0)
    by_round: dict[int, list[TableResult]] = {}
    for table in played:
        by_round.setdefault(table.round, []).append(table)
        for bot in table.bots:
            points[bot] += table.beaten(bot)
    for tables in by_round.values():
        seated = {bot for table in tables for bot in table.bots}
        size = max(len(table.bots) for table in tables)
        for bot in bots:
            if bot not in seated:
                points[bot] += (size - 1) / 2
    return points


def _tables(bot: int, played: Sequence[TableResult]) -> int:
    return sum(bot in table.bots for table in played)


def _byes(order: list[int], played: Sequence[TableResult], done: int, count: int) -> set[int]:
    """The ``count`` bots that sit this round out: the fewest byes so far, then the
    lowest standing."""
    if count == 0:
        return set()
    tables = Counter(bot for table in played for bot in table.bots)
    byes = {bot: done - tables[bot] for bot in order}
    position = {bot: index for index, bot in enumerate(order)}
    return set(sorted(order, key=lambda b: (byes[b], -position[b]))[:count])


def _unrepeated(tables: list[list[int]], seen: set[frozenset[int]]) -> list[list[int]]:
    """``tables`` with neighbours swapped between adjacent tables wherever that turns a
    table already played into a new one (the nearest standings first)."""
    tables = [list(table) for table in tables]
    for index in range(len(tables)):
        if frozenset(tables[index]) not in seen:
            continue
        for other in (index + 1, index - 1):
            if 0 <= other < len(tables) and _swap(tables, index, other, seen):
                break
    return tables


def _swap(tables: list[list[int]], index: int, other: int, seen: set[frozenset[int]]) -> bool:
    """Swap one bot of ``tables[index]`` with one of ``tables[other]`` so that neither
    is a table already played; True once done."""
    mine, theirs = tables[index], tables[other]
    # the bots nearest the other table in the standings are tried first
    mine_order = list(reversed(mine)) if other > index else list(mine)
    theirs_order = list(theirs) if other > index else list(reversed(theirs))
    for a in mine_order:
        for b in theirs_order:
            new_mine = [b if x == a else x for x in mine]
            new_theirs = [a if x == b else x for x in theirs]
            if frozenset(new_mine) not in seen and frozenset(new_theirs) not in seen:
                tables[index], tables[other] = new_mine, new_theirs
                return True
    return False
