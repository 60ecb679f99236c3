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
import sys
import zlib
from array import array
from collections.abc import Sequence

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
_LEVEL = 6
#: a column's array types by the bits its numbers need (two, four, eight bytes)
_WIDTHS = (("H", 16), ("I", 32), ("Q", 64))


def pack_pair(entries: Entries) -> bytes:
    """The totals as stored (the same totals always give the same bytes)."""
    coded = []
    for (chance, side, stratum), (chances, taken) in entries.items():
        kind = _CHANCE_CODES.get(chance)
        number = strata.code(chance, stratum) if 0 <= side < _SIDES else None
        if kind is None or number is None:
            return pack_json(entries)
        coded.append((kind * _SIDES + side, number, chances, taken))
    coded.sort()
    heads = bytes(head for head, _, _, _ in coded)
    steps, previous = [], (-1, 0)
    for head, number, _, _ in coded:
        steps.append(number - previous[1] if head == previous[0] else number)
        previous = (head, number)
    counts = [chances for _, _, chances, _ in coded] + [taken for _, _, _, taken in coded]
    return pack_columns(heads, steps, counts)


def pack_columns(heads: bytes, steps: Sequence[int], counts: Sequence[int]) -> bytes:
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
    body = zlib.decompress(data[1:])
    (size,) = struct.unpack_from("<I", body)
    heads = body[4 : 4 + size]
    steps, offset = _read_column(body, 4 + size, size)
    counts, _ = _read_column(body, offset, 2 * size)
    entries: Entries = {}
    previous, number = -1, 0
    for index, byte in enumerate(heads):
        number = number + steps[index] if byte == previous else steps[index]
        previous = byte
        chance = CHANCES[byte // _SIDES]
        entries[chance, byte % _SIDES, strata.text(chance, number)] = [
            counts[index],
            counts[size + index],
        ]
    return entries


def pack_json(entries: Entries) -> bytes:
    """The totals as compressed JSON: the format before the columns."""
    listed = sorted(
        [chance, side, stratum, *counts] for (chance, side, stratum), counts in entries.items()
    )
    return zlib.compress(json.dumps(listed, separators=(",", ":")).encode(), _LEVEL)


def _column(values: Sequence[int]) -> bytes:
    """Numbers, little-endian, two bytes each while every one fits (else four, else
    eight), after the letter that says which."""
    largest = max(values, default=0)
    typecode = next(code for code, bits in _WIDTHS if largest < 1 << bits)
    column = array(typecode, values)
    if sys.byteorder == "big":  # pragma: no cover (little-endian machines)
        column.byteswap()
    return typecode.encode() + column.tobytes()


def _read_column(body: bytes, offset: int, size: int) -> tuple[array[int], int]:
    typecode = chr(body[offset])
    column = array(typecode)
    end = offset + 1 + size * column.itemsize
    column.frombytes(body[offset + 1 : end])
    if sys.byteorder == "big":  # pragma: no cover
        column.byteswap()
    return column, end
