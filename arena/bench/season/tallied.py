"""A season's fair-play totals in bulk: each match kept as its template and its versions
by seat, and the pair rows they add up to computed with numpy at the end, as the store
packs them (arena.store.pair_packing), the pairs a part at a time.

Folding ten million matches a batch at a time reads and rewrites every pair's row a
hundred times over (hours of Python); summed here, each total is counted once. The
totals are those :func:`arena.store.fairplay.rows` gives each match and a fold adds up
(a test holds the rows equal, byte for byte).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from arena.bench.season.played import Template
from arena.fairplay import strata
from arena.fairplay.counting import match_tallies
from arena.store.fairplay import ALONE, HIGH, LOW
from arena.store.pair_packing import CHANCES, pack_columns

#: a total's key, in 64 bits: low version, high version, chance, side, situation number
_VERSION_BITS, _NUMBER_BITS = 20, 20
_PAIR_SHIFT = 24
_KIND_SHIFT, _SIDE_SHIFT = 22, 20
#: totals held at once in a part's sums before they are added up again
_HELD = 40_000_000
#: matches whose totals are made at once
_BLOCK = 200_000
_PLACES, _TABLES = CHANCES.index("places"), CHANCES.index("tables")


@dataclass(frozen=True)
class _Tallies:
    """The pool's templates' own totals (what their seats did about each other), by seat:
    flat columns, a template's rows from ``start[t]`` for ``count[t]``."""

    start: np.ndarray
    count: np.ndarray
    actor: np.ndarray
    other: np.ndarray
    kind: np.ndarray
    number: np.ndarray
    chances: np.ndarray
    taken: np.ndarray
    #: (templates, seats): each seat's place
    places: np.ndarray


class SeasonFairPlay:
    """The season's matches as arrays, and the pair rows they add up to."""

    def __init__(self, pool: Sequence[Template], count: int) -> None:
        self.table_size = len(pool[0].seats)
        self.tallies = _templates(pool)
        self.templates = np.zeros(count, dtype=np.int32)
        self.versions = np.zeros((count, self.table_size), dtype=np.int64)
        self.size = 0
        top = int(self.tallies.places.max(initial=0)) + 1
        #: a version's own place, and a pair's two places, as situation numbers
        self.own_numbers = np.array([_number("places", str(a)) for a in range(top)], np.uint64)
        self.place_numbers = np.array(
            [[_number("places", f"{a}-{b}") for b in range(top)] for a in range(top)],
            dtype=np.uint64,
        )

    def add(self, template: int, versions: Sequence[int]) -> None:
        """A match of the pool's ``template`` played by ``versions`` (by seat, distinct)."""
        self.templates[self.size] = template
        self.versions[self.size] = versions
        self.size += 1

    def rows(
        self, tournament_id: int, parts: int | None = None
    ) -> Iterator[tuple[int, int, int, bytes]]:
        """Every pair's row: (tournament, low version, high version, packed totals);
        ``parts``: the pairs are summed in this many parts (by default as memory asks)."""
        if self.size and int(self.versions[: self.size].max()) >= 1 << _VERSION_BITS:
            raise ValueError(f"version ids past {1 << _VERSION_BITS} do not fit a key")
        parts = parts or max(1, math.ceil(self.size * 30 / _HELD))  # ~30 totals a match
        for part in range(parts):
            keys, chances, taken = self._part(part, parts)
            yield from _packed(tournament_id, keys, chances, taken)

    def _part(self, part: int, parts: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The summed totals of the pairs whose lower version is ``part`` modulo ``parts``."""
        held: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        for first in range(0, self.size, _BLOCK):
            last = min(self.size, first + _BLOCK)
            keys, chances, taken = self._block(
                self.templates[first:last], self.versions[first:last]
            )
            mine = (keys >> np.uint64(_PAIR_SHIFT + _VERSION_BITS)) % np.uint64(parts) == part
            held.append(_summed(keys[mine], chances[mine], taken[mine]))
            if sum(len(h[0]) for h in held) > _HELD:
                held = [_summed(*(np.concatenate(column) for column in zip(*held, strict=True)))]
        if not held:
            return np.zeros(0, np.uint64), np.zeros(0, np.int64), np.zeros(0, np.int64)
        return _summed(*(np.concatenate(column) for column in zip(*held, strict=True)))

    def _block(
        self, templates: np.ndarray, versions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every total a block of matches adds, unsummed: keys, chances, taken."""
        t = self.tallies
        counts = t.count[templates]
        match = np.repeat(np.arange(len(templates)), counts)
        offsets = np.repeat(t.start[templates] - (np.cumsum(counts) - counts), counts)
        index = offsets + np.arange(int(counts.sum()))
        actor = versions[match, t.actor[index]]
        other = versions[match, t.other[index]]
        side = np.where(actor < other, LOW, HIGH)
        keys = [_key(np.minimum(actor, other), np.maximum(actor, other), t.kind[index], side,
                     t.number[index])]  # fmt: skip
        chances, taken = [t.chances[index]], [t.taken[index]]
        ones = np.ones(len(templates), dtype=np.int64)
        zeros = np.zeros(len(templates), dtype=np.int64)
        places = t.places[templates]
        for seat in range(self.table_size):  # a version's own place
            version = versions[:, seat]
            keys.append(_key(version, version, _PLACES, ALONE, self.own_numbers[places[:, seat]]))
            chances.append(ones)
            taken.append(zeros)
        for i, j in itertools.combinations(range(self.table_size), 2):
            swap = versions[:, i] > versions[:, j]
            low = np.where(swap, versions[:, j], versions[:, i])
            high = np.where(swap, versions[:, i], versions[:, j])
            low_place = np.where(swap, places[:, j], places[:, i])
            high_place = np.where(swap, places[:, i], places[:, j])
            number = self.place_numbers[low_place, high_place]
            keys.append(_key(low, high, _PLACES, LOW, number))  # the pair's two places
            for third in range(self.table_size):
                if third not in (i, j):  # the third bots the pair sat with
                    keys.append(_key(low, high, _TABLES, LOW, versions[:, third]))
            chances.extend([ones] * (self.table_size - 1))
            taken.extend([zeros] * (self.table_size - 1))
        return np.concatenate(keys), np.concatenate(chances), np.concatenate(taken)


def _templates(pool: Sequence[Template]) -> _Tallies:
    """The templates' totals by seat (seat numbers standing in for versions: a match's
    own versions are distinct, so a seat's totals are its version's)."""
    seats = list(range(len(pool[0].seats)))
    columns: list[list[int]] = [[] for _ in range(6)]
    start, count = [], []
    for template in pool:
        start.append(len(columns[0]))
        own = [
            t for t in match_tallies(seats, template.places, template.tallies)
            if t.chance not in ("places", "tables")
        ]  # fmt: skip
        count.append(len(own))
        for tally in own:
            values = (tally.actor, tally.other, CHANCES.index(tally.chance),
                      _number(tally.chance, tally.stratum), tally.chances, tally.taken)  # fmt: skip
            for column, value in zip(columns, values, strict=True):
                column.append(value)
    actor, other, kind, number, chances, taken = (np.array(c, dtype=np.int64) for c in columns)
    return _Tallies(
        np.array(start, dtype=np.int64), np.array(count, dtype=np.int64), actor, other,
        kind.astype(np.uint64), number.astype(np.uint64), chances, taken,
        np.array([template.places for template in pool], dtype=np.int64),
    )  # fmt: skip


def _number(chance: str, stratum: str) -> int:
    number = strata.code(chance, stratum)
    if number is None or number >= 1 << _NUMBER_BITS:
        raise ValueError(f"the season's pool has a {chance} situation with no number: {stratum}")
    return number


def _key(
    low: np.ndarray, high: np.ndarray, kind: np.ndarray | int, side: np.ndarray | int,
    number: np.ndarray,
) -> np.ndarray:  # fmt: skip
    return (
        low.astype(np.uint64) << np.uint64(_PAIR_SHIFT + _VERSION_BITS)
        | high.astype(np.uint64) << np.uint64(_PAIR_SHIFT)
        | np.asarray(kind, dtype=np.uint64) << np.uint64(_KIND_SHIFT)
        | np.asarray(side, dtype=np.uint64) << np.uint64(_SIDE_SHIFT)
        | number.astype(np.uint64)
    )


def _summed(
    keys: np.ndarray, chances: np.ndarray, taken: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Totals of equal keys added up, in key order."""
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]]) if len(keys) else order
    return (
        keys[starts],
        np.add.reduceat(chances[order], starts) if len(keys) else chances,
        np.add.reduceat(taken[order], starts) if len(keys) else taken,
    )


def _packed(
    tournament_id: int, keys: np.ndarray, chances: np.ndarray, taken: np.ndarray
) -> Iterator[tuple[int, int, int, bytes]]:
    """Summed totals in key order, packed a row a pair."""
    if not len(keys):
        return
    pairs = keys >> np.uint64(_PAIR_SHIFT)
    heads = ((keys >> np.uint64(_KIND_SHIFT)) & np.uint64(3)) * np.uint64(3) + (
        (keys >> np.uint64(_SIDE_SHIFT)) & np.uint64(3)
    )
    numbers = (keys & np.uint64((1 << _NUMBER_BITS) - 1)).astype(np.int64)
    new_pair = np.r_[True, pairs[1:] != pairs[:-1]]
    new_head = new_pair | np.r_[True, heads[1:] != heads[:-1]]
    steps = np.where(new_head, numbers, numbers - np.r_[0, numbers[:-1]])
    heads_bytes = heads.astype(np.uint8)
    bounds = [*np.flatnonzero(new_pair).tolist(), len(keys)]
    mask = (1 << _VERSION_BITS) - 1
    for first, last in itertools.pairwise(bounds):
        pair = int(pairs[first])
        counts = chances[first:last].tolist() + taken[first:last].tolist()
        data = pack_columns(heads_bytes[first:last].tobytes(), steps[first:last].tolist(), counts)
        yield tournament_id, pair >> _VERSION_BITS, pair & mask, data
