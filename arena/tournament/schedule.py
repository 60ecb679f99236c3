"""Round-robin tables: every bot meets every other about equally often and sits in every
seat about equally often. Pure: bots in, seat lists out.

How it is guaranteed:

- When the possible tables are few (``C(n, k) * k! <= EXACT_LIMIT``) the schedule cycles
  through every ``k``-subset of the bots and plays every seat order of it (``k!``
  matches, in a seeded order). In every complete cycle each pair of bots meets in
  exactly ``C(n-2, k-2) * k!`` matches, each bot sits in each seat exactly
  ``C(n-1, k-1) * (k-1)!`` times, and each bot sits right after each other bot equally
  often: seat order matters in this game (who plays after whom), so it is balanced too.
- With more possible tables but few orders, the same holds per subset with ``k``
  rotations of a seeded order instead of every order.
- Otherwise tables are drawn greedily: the bots with the fewest games first, each
  next bot chosen to meet the table's bots least so far, and the seat order chosen
  (every order up to 6 seats) so that seat counts grow least. Tests bound the spread.

A last, partial cycle adds at most one cycle's imbalance.

Teams: bots that share a team (the same owner) never sit at one table. The cycles then
run over the subsets without two of a team, and the greedy draw skips a team already
seated; the guarantees above hold among the tables allowed.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence

EXACT_LIMIT = 5000
EXACT_SEATS = 6


#: bot -> its team (an owner); a bot not in it is a team of its own
Teams = Mapping[int, Hashable]


def round_robin(
    bots: Sequence[int],
    table_size: int,
    games: int,
    seed: int | str,
    teams: Teams | None = None,
) -> list[list[int]]:
    """``games`` tables of ``table_size`` bots each, as lists of bots by seat; no two
    bots of one team at a table."""
    if table_size < 2:
        raise ValueError("a table needs at least 2 seats")
    if table_size > len(bots):
        raise ValueError(
            f"a table of {table_size} needs at least {table_size} bots, got {len(bots)}"
        )
    if len(set(bots)) != len(bots):
        raise ValueError("a bot is listed twice")
    team_of = _team_of(bots, teams or {})
    if len(set(team_of.values())) < table_size:
        raise ValueError(
            f"a table of {table_size} needs bots of {table_size} different owners "
            f"(one owner's bots never share a table), got {len(set(team_of.values()))}"
        )
    rng = random.Random(f"schedule/{seed}")
    subsets = math.comb(len(bots), table_size)
    if subsets * math.factorial(table_size) <= EXACT_LIMIT:
        return _cycled(list(bots), table_size, games, rng, team_of, every_order=True)
    if subsets * table_size <= EXACT_LIMIT:
        return _cycled(list(bots), table_size, games, rng, team_of, every_order=False)
    return _greedy(list(bots), table_size, games, rng, team_of)


def _team_of(bots: Sequence[int], teams: Teams) -> dict[int, Hashable]:
    return {bot: ("team", teams[bot]) if bot in teams else ("bot", bot) for bot in bots}


def _mixed(table: Sequence[int], team_of: Mapping[int, Hashable]) -> bool:
    """Whether no two bots of the table share a team."""
    return len({team_of[bot] for bot in table}) == len(table)


def _cycled(
    bots: list[int],
    size: int,
    games: int,
    rng: random.Random,
    team_of: Mapping[int, Hashable],
    every_order: bool,
) -> list[list[int]]:
    tables: list[list[int]] = []
    allowed = [s for s in itertools.combinations(bots, size) if _mixed(s, team_of)]
    while len(tables) < games:
        cycle: list[list[int]] = []
        for subset in allowed:
            if every_order:
                cycle.extend(list(order) for order in itertools.permutations(subset))
            else:
                order = list(subset)
                rng.shuffle(order)
                cycle.extend(order[shift:] + order[:shift] for shift in range(size))
        rng.shuffle(cycle)
        tables.extend(cycle)
    return tables[:games]


def _greedy(
    bots: list[int], size: int, games: int, rng: random.Random, team_of: Mapping[int, Hashable]
) -> list[list[int]]:
    played: Counter[int] = Counter()
    met: Counter[tuple[int, int]] = Counter()
    seated: Counter[tuple[int, int]] = Counter()
    tables = []
    for _ in range(games):
        order = sorted(bots, key=lambda b: (played[b], rng.random()))
        table = [order[0]]
        candidates = order[1:]
        while len(table) < size:
            seated_teams = {team_of[t] for t in table}
            best = min(
                (b for b in candidates if team_of[b] not in seated_teams),
                key=lambda b: (played[b], sum(met[_pair(b, t)] for t in table), rng.random()),
            )
            candidates.remove(best)
            table.append(best)
        seats = assign_seats(table, seated, rng)
        for bot in table:
            played[bot] += 1
        for a, b in itertools.combinations(table, 2):
            met[_pair(a, b)] += 1
        for seat, bot in enumerate(seats):
            seated[bot, seat] += 1
        tables.append(seats)
    return tables


def assign_seats(
    table: list[int], seated: Counter[tuple[int, int]], rng: random.Random
) -> list[int]:
    """The seat order in which the bots' seat counts grow least: every permutation for
    tables up to EXACT_SEATS seats (at most 720), most-constrained-first greedy beyond."""
    if len(table) <= EXACT_SEATS:
        orders = list(itertools.permutations(table))
        rng.shuffle(orders)
        return list(min(orders, key=lambda order: _seat_cost(tuple(order), seated)))
    free = list(range(len(table)))
    seats: dict[int, int] = {}
    for bot in sorted(table, key=lambda b: (-sum(seated[b, s] for s in free), rng.random())):
        seat = min(free, key=lambda s: (seated[bot, s], rng.random()))
        free.remove(seat)
        seats[seat] = bot
    return [seats[seat] for seat in range(len(table))]


def _seat_cost(order: Sequence[int], seated: Counter[tuple[int, int]]) -> tuple[int, int]:
    counts = [seated[bot, seat] for seat, bot in enumerate(order)]
    return max(counts), sum(counts)


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def rotation(seating: Sequence[int]) -> int:
    """Which rotation of its deal a duplicate table's ``seating`` (its bots, seat by seat)
    is, the same number wherever it is asked: the seat of its least bot (a table seats a
    bot once, and each rotation moves every bot one seat on)."""
    return min(range(len(seating)), key=lambda seat: seating[seat])


def duplicate(
    bots: Sequence[int],
    table_size: int,
    games: int,
    seed: int | str,
    teams: Teams | None = None,
) -> list[tuple[int, list[int]]]:
    """Duplicate deals: ``(deal group, seats)`` pairs. Each group is one round-robin table
    played once per seat rotation with the same deal, so every bot at the table holds
    every hand of that deal once. ``games`` is rounded up to whole groups."""
    groups = -(-games // table_size)
    tables = []
    for group, base in enumerate(round_robin(bots, table_size, groups, seed, teams)):
        for shift in range(table_size):
            tables.append((group, base[shift:] + base[:shift]))
    return tables
