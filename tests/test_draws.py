"""The engine's fast draws are the library's draws: same items, same order, and the
generator left in the same state (so every later draw agrees too)."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from arena.engine import draws


@given(st.integers(0, 2**64), st.integers(0, 120))
def test_shuffle_is_random_shuffle(seed: int, length: int) -> None:
    ours, theirs = random.Random(seed), random.Random(seed)
    mine, library = list(range(length)), list(range(length))
    draws.shuffle(ours, mine)
    theirs.shuffle(library)
    assert mine == library
    assert ours.getstate() == theirs.getstate()


@given(st.integers(0, 2**64), st.data())
def test_sample_is_random_sample(seed: int, data: st.DataObject) -> None:
    population = tuple(range(data.draw(st.integers(0, 200), "n")))
    k = data.draw(st.integers(0, len(population)), "k")
    ours, theirs = random.Random(seed), random.Random(seed)
    assert draws.sample(ours, population, k) == theirs.sample(population, k)
    assert ours.getstate() == theirs.getstate()


def test_sample_takes_both_of_the_librarys_paths() -> None:
    """A small population is drawn from a pool, a large one through a set of indices."""
    for n, k in ((13, 5), (21, 3), (22, 3), (200, 6), (200, 60), (30, 30)):
        ours, theirs = random.Random(n * k), random.Random(n * k)
        assert draws.sample(ours, range(n), k) == theirs.sample(range(n), k)
        assert ours.getstate() == theirs.getstate()
