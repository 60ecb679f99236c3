"""A pair's fair-play totals as one stored value (``fairplay_pairs.data``).

Packed in columns, then compressed: a byte a total for its chance and side, its
situation's number (arena.fairplay.strata) as the step from the one before it, its
chances, then what was taken; two bytes a number while a column's fit, else four, else
eight. 42-62 % fewer bytes than the same totals as compressed JSON (the format before
2026-12-07, still read; a row whose situation has no number is still written so), and
a third less time to read and write: a fold reads and rewrites every pair a batch
touched, and a season's pairs grow to hundreds of totals (``arena bench season``).
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Sequence

import numpy as np

from arena.fairplay import strata

#: a pair's totals: (chance, side, stratum) -> [chances, taken]
Entries = dict[tuple[str, int, str], list[int]]
#: the columns' format (compressed JSON starts with zlib's 0x78)
COLUMNS = b"\x01"
#: the chances a row packs, in the order of their heads
CHANCES = ("calls", "plays", "places", "tables")
_CHANCE_CODES = {chance: number for number, chance in enumerate(CHANCES)}
#: sides a chance's totals have (arena.store.fairplay: LOW, HIGH, ALONE)
_SIDES = 3
#: zlib's level: a fold packs every pair it touches, and at 120 matches together level 6
#: took 98 µs for 1,045 bytes where 4 takes 24 µs for 1,062 (1,200 together: 296 µs for
#: 2,394 bytes, 72 µs for 2,473)
_LEVEL = 4
#: a column's array types by the bits its numbers need (two, four, eight bytes)
_WIDTHS = (("H", 16), ("I", 32), ("Q", 64))
_BYTES = {code: bits // 8 for code, bits in _WIDTHS}


def pack_pair(entries: Entries) -> bytes:
    """The totals as stored (the same totals always give the same bytes)."""
    coded = _coded(entries)
    return pack_json(entries) if coded is None else _packed(*_summed(*coded))


def add_to(held: bytes | None, added: Entries) -> bytes:
    """``held``'s totals (a stored value, or none) with ``added`` added, as stored: the
    bytes :func:`pack_pair` gives for their sum. A fold's step for every pair it touches;
    in columns, the held totals are never turned into texts (a season's pair holds
    hundreds, and a fold of ten million matches' season spent most of its time so)."""
    coded = _coded(added)
    if coded is None or (held is not None and held[:1] != COLUMNS):
        entries = unpack_pair(held) if held is not None else {}
        for key, counts in added.items():
            total = entries.setdefault(key, [0, 0])
            total[0] += counts[0]
            total[1] += counts[1]
        return pack_pair(entries)
    if held is not None:
        coded = [np.concatenate(both) for both in zip(_unpacked_columns(held), coded, strict=True)]
    return _packed(*_summed(*coded))


def pack_columns(
    heads: bytes, steps: Sequence[int] | np.ndarray, counts: Sequence[int] | np.ndarray
) -> bytes:
    """Totals already in columns, in order of head then number: each one's head
    (:func:`head`), its number's step from the one before it of the same head (the
    number itself for a head's first), then every total's chances and every one's taken."""
    body = struct.pack("<I", len(heads)) + heads + _column(steps) + _column(counts)
    return COLUMNS + zlib.compress(body, _LEVEL)


def head(chance: str, side: int) -> int:
    """The byte a total of ``chance`` on ``side`` is stored under."""
    return CHANCES.index(chance) * _SIDES + side


def unpack_pair(data: bytes) -> Entries:
    """The totals a stored value holds (either format)."""
    if data[:1] != COLUMNS:
        return {
            (chance, side, stratum): [chances, taken]
            for chance, side, stratum, chances, taken in json.loads(zlib.decompress(data))
        }
    entries: Entries = {}
    for byte, number, chances, taken in zip(
        *(column.tolist() for column in _unpacked_columns(data)), strict=True
    ):
        chance = CHANCES[byte // _SIDES]
        entries[chance, byte % _SIDES, strata.text(chance, number)] = [chances, taken]
    return entries


def pack_json(entries: Entries) -> bytes:
    """The totals as compressed JSON: the format before the columns."""
    listed = sorted(
        [chance, side, stratum, *counts] for (chance, side, stratum), counts in entries.items()
    )
    return zlib.compress(json.dumps(listed, separators=(",", ":")).encode(), _LEVEL)


def _coded(entries: Entries) -> list[np.ndarray] | None:
    """Totals as columns (heads, numbers, chances, taken), or None if a situation has
    no number."""
    heads, numbers, chances, taken = [], [], [], []
    for (chance, side, stratum), (chance_count, taken_count) in entries.items():
        kind = _CHANCE_CODES.get(chance)
        number = strata.code(chance, stratum) if 0 <= side < _SIDES else None
        if kind is None or number is None:
            return None
        heads.append(kind * _SIDES + side)
        numbers.append(number)
        chances.append(chance_count)
        taken.append(taken_count)
    return [
        np.array(heads, dtype=np.uint8),
        np.array(numbers, dtype=np.uint64),
        np.array(chances, dtype=np.uint64),
        np.array(taken, dtype=np.uint64),
    ]


def _summed(
    heads: np.ndarray, numbers: np.ndarray, chances: np.ndarray, taken: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Totals of the same head and number added up, in order of head then number."""
    if not len(heads):
        return heads, numbers, chances, taken
    order = np.lexsort((numbers, heads))
    heads, numbers = heads[order], numbers[order]
    starts = np.flatnonzero(_firsts(heads) | _firsts(numbers))
    return (
        heads[starts],
        numbers[starts],
        np.add.reduceat(chances[order], starts),
        np.add.reduceat(taken[order], starts),
    )


def _packed(
    heads: np.ndarray, numbers: np.ndarray, chances: np.ndarray, taken: np.ndarray
) -> bytes:
    """Summed totals (:func:`_summed`) as stored."""
    steps = np.where(_firsts(heads), numbers, numbers - np.r_[np.uint64(0), numbers[:-1]])
    return pack_columns(heads.tobytes(), steps, np.concatenate((chances, taken)))


def _unpacked_columns(data: bytes) -> list[np.ndarray]:
    """A stored value's totals in columns, as :func:`_coded` gives them."""
    body = zlib.decompress(data[1:])
    (size,) = struct.unpack_from("<I", body)
    heads = np.frombuffer(body, np.uint8, size, 4)
    steps, offset = _read_column(body, 4 + size, size)
    counts, _ = _read_column(body, offset, 2 * size)
    firsts = _firsts(heads)
    starts = np.flatnonzero(firsts)
    running = np.cumsum(steps, dtype=np.uint64)
    before = running[starts] - steps[starts]  # the sum before each head's first number
    group = np.cumsum(firsts) - 1
    return [heads, running - before[group], counts[:size], counts[size:]]


def _firsts(values: np.ndarray) -> np.ndarray:
    """Where each run of equal values starts."""
    return np.concatenate(([True], values[1:] != values[:-1]))[: len(values)]


def _column(values: Sequence[int] | np.ndarray) -> bytes:
    """Numbers, little-endian, two bytes each while every one fits (else four, else
    eight), after the letter that says which."""
    column = np.asarray(values, dtype=np.uint64)
    largest = int(column.max()) if len(column) else 0
    typecode, bits = next((code, bits) for code, bits in _WIDTHS if largest < 1 << bits)
    return typecode.encode() + column.astype(f"<u{bits // 8}").tobytes()


def _read_column(body: bytes, offset: int, size: int) -> tuple[np.ndarray, int]:
    """A column :func:`_column` wrote, as 64-bit numbers, and where the next begins."""
    width = _BYTES[chr(body[offset])]
    end = offset + 1 + size * width
    return np.frombuffer(body, f"<u{width}", size, offset + 1).astype(np.uint64), end
