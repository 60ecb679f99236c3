"""Round-robin tables: equal meetings and equal seats, as arena/tournament/schedule.py promises."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import pytest

from arena.tournament.schedule import round_robin


def counts(tables):
    meetings = Counter(tuple(sorted(p)) for t in tables for p in itertools.combinations(t, 2))
    seats = Counter((bot, seat) for t in tables for seat, bot in enumerate(t))
    return meetings, seats


def follows(tables):
    """How often each bot sits right after each other bot (clockwise)."""
    return Counter((t[(i + 1) % len(t)], b) for t in tables for i, b in enumerate(t))


@pytest.mark.parametrize(("bots", "size"), [(4, 4), (5, 3), (6, 2), (6, 4), (5, 4)])
def test_complete_cycles_balance_meetings_seats_and_neighbours(bots: int, size: int) -> None:
    cycle = math.comb(bots, size) * math.factorial(size)
    tables = round_robin(list(range(bots)), size, 2 * cycle, seed=3)
    meetings, seats = counts(tables)
    assert set(meetings.values()) == {2 * math.comb(bots - 2, size - 2) * math.factorial(size)}
    assert len(meetings) == math.comb(bots, 2)
    assert set(seats.values()) == {2 * math.comb(bots - 1, size - 1) * math.factorial(size - 1)}
    assert len(set(follows(tables).values())) == 1, "everyone follows everyone equally"
    assert all(len(set(t)) == size for t in tables)


def test_many_subsets_rotate_seats_instead_of_every_order() -> None:
    bots, size = 12, 4  # 495 subsets: 11,880 orders, 1,980 rotations
    tables = round_robin(list(range(bots)), size, math.comb(bots, size) * size, seed=1)
    meetings, seats = counts(tables)
    assert set(meetings.values()) == {math.comb(bots - 2, size - 2) * size}
    assert set(seats.values()) == {math.comb(bots - 1, size - 1)}


def test_a_partial_cycle_adds_at_most_one_cycles_imbalance() -> None:
    tables = round_robin(list(range(6)), 3, 50 + 120, seed=1)  # a cycle is 20 subsets x 3!
    meetings, _ = counts(tables)
    per_cycle = math.comb(4, 1) * math.factorial(3)
    assert per_cycle <= min(meetings.values()) <= max(meetings.values()) <= 2 * per_cycle
    assert len(tables) == 170


@pytest.mark.parametrize("games", [400, 800])
def test_large_fields_are_balanced_greedily_and_the_spread_does_not_grow(games: int) -> None:
    tables = round_robin(list(range(40)), 4, games, seed=2)
    played = Counter(bot for t in tables for bot in t)
    assert max(played.values()) - min(played.values()) <= 1
    meetings, seats = counts(tables)
    per_bot = {bot: [seats[bot, s] for s in range(4)] for bot in range(40)}
    assert all(max(v) - min(v) <= 2 for v in per_bot.values())
    assert (
        max(meetings.values())
        - min(meetings.get(p, 0) for p in itertools.combinations(range(40), 2))
        <= 3
    )


def test_the_schedule_is_seeded() -> None:
    assert round_robin([1, 2, 3, 4], 2, 12, "x") == round_robin([1, 2, 3, 4], 2, 12, "x")
    assert round_robin([1, 2, 3, 4], 2, 12, "x") != round_robin([1, 2, 3, 4], 2, 12, "y")


@pytest.mark.parametrize(
    ("bots", "size", "message"),
    [([1, 2], 3, "needs at least 3 bots"), ([1, 1, 2], 2, "listed twice"), ([1, 2], 1, "2 seats")],
)
def test_bad_requests_are_refused(bots, size, message) -> None:
    with pytest.raises(ValueError, match=message):
        round_robin(bots, size, 4, 0)


def test_duplicate_groups_rotate_one_table_so_each_bot_holds_each_seat() -> None:
    from arena.tournament.schedule import duplicate

    tables = duplicate(list(range(5)), 4, 38, seed=1)
    assert len(tables) == 40, "rounded up to whole groups of 4"
    by_group: dict[int, list[list[int]]] = {}
    for group, seats in tables:
        by_group.setdefault(group, []).append(seats)
    assert sorted(by_group) == list(range(10))
    for rotations in by_group.values():
        assert len(rotations) == 4 and len({frozenset(r) for r in rotations}) == 1
        for bot in rotations[0]:
            assert sorted(r.index(bot) for r in rotations) == [0, 1, 2, 3]


def _teammates(tables, teams):
    """Tables where two bots of one team sit together."""
    return [t for t in tables if len({teams.get(b, ("bot", b)) for b in t}) < len(t)]


@pytest.mark.parametrize(
    ("bots", "size", "games"),
    [(6, 3, 240), (12, 4, 1980), (40, 4, 400)],  # every order, rotations, greedy
)
def test_an_owners_bots_never_share_a_table_and_the_rest_stays_balanced(
    bots: int, size: int, games: int
) -> None:
    # two bots of one owner, two of another: the rest are the operator's
    teams = {0: "ann", 1: "ann", 2: "bob", 3: "bob"}
    tables = round_robin(list(range(bots)), size, games, seed=5, teams=teams)
    assert len(tables) == games and not _teammates(tables, teams)
    played = Counter(bot for t in tables for bot in t)
    assert set(played) == set(range(bots)), "every bot still plays"
    meetings, _ = counts(tables)
    assert not any(teams.get(a) == teams.get(b) is not None for a, b in meetings)


def test_the_duplicate_schedule_keeps_teams_apart_in_every_rotation() -> None:
    from arena.tournament.schedule import duplicate

    teams = {0: "ann", 1: "ann"}
    groups = duplicate(list(range(5)), 3, 60, seed=1, teams=teams)
    assert not _teammates([table for _, table in groups], teams)


@pytest.mark.parametrize("size", [2, 3, 4, 6, 12])
def test_each_rotation_of_a_duplicate_deal_has_a_number_of_its_own(size: int) -> None:
    """The number the worker gives a rotation's runtime copy: within a deal, every
    rotation's differs, whatever order the rotations are asked in."""
    from arena.tournament.schedule import duplicate, rotation

    deals: dict[int, list[int]] = {}
    for group, table in duplicate(list(range(10, 10 + size + 3)), size, 8 * size, seed=3):
        deals.setdefault(group, []).append(rotation(table))
    assert deals and all(sorted(numbers) == list(range(size)) for numbers in deals.values())


def test_too_few_owners_for_a_table_is_refused_with_the_reason() -> None:
    with pytest.raises(ValueError, match="needs bots of 5 different owners.*got 4"):
        round_robin([1, 2, 3, 4, 5], 5, 10, seed=0, teams={1: "ann", 2: "ann"})
