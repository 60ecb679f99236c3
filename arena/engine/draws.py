"""Random draws exactly as :class:`random.Random` makes them, only faster.

``shuffle`` and ``sample`` are CPython's own algorithms (``Random.shuffle`` and
``Random.sample``) drawing the same bits from the same generator, so a seed gives
the same deal and the same random play as before; they only skip the method call
per draw (``_randbelow``) and the argument checks. tests/test_draws.py holds them to
the library's results.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from math import ceil, log
from typing import Final, TypeVar

T = TypeVar("T")


def shuffle(rng: random.Random, items: list[T]) -> None:
    """Shuffle ``items`` in place: ``rng.shuffle(items)``."""
    getrandbits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        below = i + 1
        bits = below.bit_length()
        j = getrandbits(bits)
        while j >= below:
            j = getrandbits(bits)
        items[i], items[j] = items[j], items[i]


def sample(rng: random.Random, population: Sequence[T], k: int) -> list[T]:
    """``k`` distinct items of ``population`` in random order: ``rng.sample(population, k)``
    (``0 <= k <= len(population)``)."""
    getrandbits = rng.getrandbits
    n = len(population)
    if n <= _pool_limit(k):
        pool = list(population)
        result = []
        for last in range(n - 1, n - 1 - k, -1):
            below = last + 1
            bits = below.bit_length()
            j = getrandbits(bits)
            while j >= below:
                j = getrandbits(bits)
            result.append(pool[j])
            pool[j] = pool[last]
        return result
    selected: set[int] = set()
    chosen = []
    bits = n.bit_length()
    for _ in range(k):
        j = getrandbits(bits)
        while j >= n or j in selected:
            j = getrandbits(bits)
        selected.add(j)
        chosen.append(population[j])
    return chosen


def _pool_limit(k: int) -> int:
    """The largest population ``Random.sample`` draws ``k`` items from through a list pool
    (a larger one goes through a set of chosen indices)."""
    return _POOL_LIMITS[k] if k < len(_POOL_LIMITS) else _worked_out_pool_limit(k)


def _worked_out_pool_limit(k: int) -> int:
    return 21 + int(4 ** ceil(log(k * 3, 4))) if k > 5 else 21


#: Random.sample's pool limit for each small k: 21, plus ``4 ** ceil(log(3k, 4))`` past
#: five (worked out once: the logarithm is a call)
_POOL_LIMITS: Final = tuple(_worked_out_pool_limit(k) for k in range(128))
