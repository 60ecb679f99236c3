"""How a pair's fair-play row grows with the matches the pair plays together: the part of
a season's database that a bench at a million matches cannot show for ten million (a
pair of a thousand bots plays together about 12 times in a million four-seat matches,
120 times in ten million). One pair is seated with random third bots at matches drawn
from the season's pool, and its row is packed as the store packs it."""

from __future__ import annotations

import random
from collections.abc import Sequence

from arena.bench.season.played import Template
from arena.store import fairplay
from arena.store.pair_packing import Entries, pack_pair

#: matches a pair plays together at which its row is measured
TOGETHER = (12, 120, 1200)


def pair_row_bytes(
    pool: Sequence[Template], bots: int, together: Sequence[int] = TOGETHER, seed: int = 0
) -> dict[int, int]:
    """The bytes of one pair's stored row (as :func:`arena.store.pair_packing.pack_pair`
    packs it) after each of ``together`` matches of the pair, at tables of ``bots``."""
    rng = random.Random(seed)
    table_size = len(pool[0].seats)
    low, high, tournament = 1, 2, 1
    entries: Entries = {}
    measured: dict[int, int] = {}
    for played in range(1, max(together) + 1):
        versions = [low, high, *rng.sample(range(3, bots + 1), table_size - 2)]
        rng.shuffle(versions)
        match = pool[rng.randrange(len(pool))]
        for (_, chance, actor, other, stratum), (chances, taken) in fairplay.rows(
            tournament, versions, match.places, match.tallies
        ):
            if {actor, other} == {low, high}:  # the pair's, either side deciding
                side = fairplay.LOW if actor == low else fairplay.HIGH
                total = entries.setdefault((chance, side, stratum), [0, 0])
                total[0] += chances
                total[1] += taken
        if played in together:
            measured[played] = len(pack_pair(entries))
    return measured
