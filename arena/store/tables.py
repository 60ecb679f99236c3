"""The tables people played with bots (/play): opened, then finished with their log, or
abandoned when the site stopped under them. Unranked: no rating, no leaderboard."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from arena.base.errors import NotFound
from arena.base.states import TableStatus
from arena.referee.log import MatchLog
from arena.store import logs
from arena.store.models import PlayedTable, now


@dataclass(frozen=True)
class TableOpened:
    """A table as it opens: who sits where, under which rules."""

    id: str
    match_id: str
    person: str
    owner_id: int | None
    rules: dict[str, Any]
    names: list[str]
    seat: int


def open_table(session: Session, table: TableOpened) -> None:
    session.add(
        PlayedTable(
            id=table.id,
            match_id=table.match_id,
            person=table.person,
            owner_id=table.owner_id,
            rules=table.rules,
            names=table.names,
            seat=table.seat,
            status=TableStatus.PLAYING,
        )
    )


def finish(session: Session, table_id: str, log: MatchLog) -> None:
    """The table is over: its log, and the person's place and forfeit."""
    table = find(session, table_id)
    seat = log.seats[table.seat]
    table.status = TableStatus.DONE
    table.place = next(
        (place for place, group in enumerate(log.result.ranking, 1) if table.seat in group), None
    )
    table.forfeit_kind = seat.forfeit.kind if seat.forfeit is not None else None
    table.log = logs.encode(log)
    table.finished_at = now()


def abandon(session: Session, table_id: str) -> None:
    table = find(session, table_id)
    if table.status is TableStatus.PLAYING:
        table.status, table.finished_at = TableStatus.ABANDONED, now()


def abandon_playing(session: Session) -> int:
    """Every table still marked playing is abandoned (the site that played it stopped);
    how many."""
    result = session.execute(
        update(PlayedTable)
        .where(PlayedTable.status == TableStatus.PLAYING)
        .values(status=TableStatus.ABANDONED, finished_at=now())
    )
    return int(result.rowcount)  # type: ignore[attr-defined]


def find(session: Session, table_id: str) -> PlayedTable:
    table = session.get(PlayedTable, table_id)
    if table is None:
        raise NotFound.of("table.missing", id=table_id)
    return table


def log_of(session: Session, table_id: str) -> dict[str, Any]:
    """A finished table's full log (docs/match-log.md)."""
    table = find(session, table_id)
    if table.log is None:
        raise NotFound.of("table.no_log", id=table_id, status=table.status.value)
    return logs.decode(table.log)


def of_owner(session: Session, owner_id: int, limit: int = 50) -> list[PlayedTable]:
    """An owner's tables, the newest first."""
    return list(
        session.scalars(
            select(PlayedTable)
            .where(PlayedTable.owner_id == owner_id)
            .order_by(PlayedTable.created_at.desc())
            .limit(limit)
        )
    )
