"""Named tuples made from their fields: ``new(Played, (seat, placed, rank, count))``.

It is ``tuple.__new__(cls, fields)``: the class's keyword-taking ``__new__`` costs twice
as much, and the engine makes several named tuples a decision (events, observations,
plays). Where the small C module beside this one is built (``make native``, with the
compiled engine: arena/native.py) it makes them directly, a third cheaper again; the
objects are the same either way (tests/test_records.py).
"""

from __future__ import annotations

__all__ = ["built", "new"]

try:
    from arena.engine._records import new
except ImportError:  # not built: plain Python
    new = tuple.__new__


def built() -> bool:
    """Is the C module here?"""
    return new is not tuple.__new__
