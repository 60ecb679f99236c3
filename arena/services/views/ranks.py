"""A page of a leaderboard's ranks: a field of a thousand bots is shown a hundred at a
time (its page was 270 KB whole), the rows read once and sliced."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from arena.services.views.schemas import Ranks

#: ranks a page shows
PER_PAGE = 100

Row = TypeVar("Row")


def page_of(
    rows: Sequence[Row], ranks_from: int = 1, per_page: int | None = None
) -> tuple[list[Row], Ranks]:
    """The rows from rank ``ranks_from`` (1: the leader; past the last: the last page),
    :data:`PER_PAGE` of them unless told, and which ranks they are."""
    per_page = per_page or PER_PAGE
    total = len(rows)
    last_page = max(0, (total - 1) // per_page * per_page)
    start = min(max(ranks_from, 1) - 1, last_page)
    shown = list(rows[start : start + per_page])
    return shown, Ranks(start=start + 1, end=start + len(shown), total=total, per_page=per_page)
