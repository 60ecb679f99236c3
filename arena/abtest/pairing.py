"""Where each pair of an A/B test is played: the tested seat and the opponents.

Pair ``p`` deals one deal twice (the same seed) at the same table: the opponents are
``K - 1`` bots of the field taken in turn, the tested seat moves round the table with
``p``, and the two matches differ only in who holds the tested seat. Over ``K`` pairs the
tested seat has been every seat once; over ``K * len(field)`` pairs every opponent has
sat in every place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class PairTable:
    """A pair's table: ``seats`` with ``None`` in the tested seat."""

    pair: int
    tested_seat: int
    seats: tuple[int | None, ...]

    def with_version(self, version: int) -> list[int]:
        """The table with ``version`` in the tested seat."""
        return [version if seat is None else seat for seat in self.seats]


def pair_table(pair: int, field: Sequence[int], table_size: int) -> PairTable:
    """The table of pair number ``pair`` (from 0) for a field of opponents."""
    if table_size < 2:
        raise ValueError("a table has at least two players")
    if len(field) < table_size - 1:
        raise ValueError(f"a table of {table_size} needs {table_size - 1} opponents")
    tested = pair % table_size
    start = (pair // table_size) % len(field)
    opponents = [field[(start + offset) % len(field)] for offset in range(table_size - 1)]
    seats: list[int | None] = list(opponents)
    seats.insert(tested, None)
    return PairTable(pair, tested, tuple(seats))
