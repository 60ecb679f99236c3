"""records.new makes the named tuple that tuple.__new__ makes, compiled or not; anything
that is not a named tuple of plain fields goes the library's way (or is refused)."""

from __future__ import annotations

import gc
import sys
from typing import NamedTuple

import pytest

from arena import native
from arena.engine import records
from arena.engine.events import DealOver, Played
from arena.engine.legal import LegalActions, Phase


class WithDict(tuple[int, int]):
    """A tuple subclass with an instance dict: not made directly."""


def test_a_named_tuple_is_the_one_its_class_makes() -> None:
    made = records.new(Played, (1, 2, "7", 3))
    assert type(made) is Played
    assert made == Played(1, 2, "7", 3) and hash(made) == hash(Played(1, 2, "7", 3))
    assert (made.seat, made.placed, made.rank, made.count) == (1, 2, "7", 3)
    assert repr(made) == "Played(seat=1, placed=2, rank='7', count=3)"
    assert gc.is_tracked(made) == gc.is_tracked(tuple.__new__(Played, (1, 2, "7", 3)))
    legal = records.new(LegalActions, (0, Phase.LEAD, None, False, False, False, ()))
    assert legal.kinds == () and legal._asdict()["phase"] is Phase.LEAD


def test_the_fields_are_held_not_copied() -> None:
    ranking = ((2,), (0, 1))
    before = sys.getrefcount(ranking)
    over = records.new(DealOver, (ranking, "finished"))
    held, holding = over.ranking is ranking, sys.getrefcount(ranking)
    del over
    after = sys.getrefcount(ranking)
    assert held and (holding, after) == (before + 1, before)


def test_other_tuples_go_the_librarys_way() -> None:
    class Pair(NamedTuple):
        left: int
        right: int

    assert records.new(Pair, (1, 2)) == Pair(1, 2)
    assert records.new(tuple, (1, 2)) == (1, 2)
    odd = records.new(WithDict, (1, 2))
    assert type(odd) is WithDict and odd == (1, 2)
    odd.note = "a dict of its own"  # type: ignore[attr-defined]
    assert records.new(Pair, [1, 2]) == Pair(1, 2), "any iterable, as tuple.__new__ takes"


def test_what_is_no_tuple_class_is_refused() -> None:
    for cls, fields in ((list, (1,)), (3, (1,))):
        with pytest.raises(TypeError):
            records.new(cls, fields)  # type: ignore[type-var]


def test_the_c_module_is_built_with_the_compiled_engine() -> None:
    assert records.built() == native.compiled(), "make native builds both"
