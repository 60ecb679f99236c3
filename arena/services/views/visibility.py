"""Which tournaments a reader may see: every one, but an owner's private run (a
scrimmage: its list, its matches, their results and logs) is its owner's alone.
Anyone else is told there is no such thing (404), as for a name that was never made."""

from __future__ import annotations

from sqlalchemy import ColumnElement, Select, select
from sqlalchemy.orm import Session

from arena.base.errors import NotFound
from arena.store import tournaments as tournament_store
from arena.store.models import Tournament
from arena.tournament import formats


def _private() -> tuple[str, ...]:
    return formats.having(lambda format: format.private)


def visible_to(reader: int | None) -> ColumnElement[bool]:
    """A condition on ``Tournament``: what ``reader`` (an owner's id; None: anyone) sees."""
    public = Tournament.format.not_in(_private())
    return public if reader is None else public | (Tournament.owner_id == reader)


def hidden_from(reader: int | None) -> Select[int]:
    """The ids of the tournaments ``reader`` may not see (a few: others' private runs)."""
    return select(Tournament.id).where(~visible_to(reader))


def may_see(tournament: Tournament, reader: int | None) -> bool:
    return not formats.named(tournament.format).private or (
        reader is not None and tournament.owner_id == reader
    )


def shown(tournament: Tournament, reader: int | None = None) -> Tournament:
    """``tournament`` if ``reader`` may see it, else NotFound (as if it did not exist)."""
    if not may_see(tournament, reader):
        raise NotFound(f"no tournament named {tournament.name!r}")
    return tournament


def tournament_named(session: Session, name: str, reader: int | None = None) -> Tournament:
    """The tournament called ``name`` as ``reader`` may see it."""
    return shown(tournament_store.get(session, name), reader)
