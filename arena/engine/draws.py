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
from typing import TypeVar

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
    setsize = 21  # as Random.sample: a list pool while it is smaller than a set
    if k > 5:
        setsize += 4 ** ceil(log(k * 3, 4))
    if n <= setsize:
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
