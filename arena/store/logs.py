"""The stored form of a match log: compact JSON, zlib-compressed (level 1: a log
compresses about 6x and a worker records hundreds a second). Every reader and writer
of ``match_logs.data`` goes through here, and so does a log that moved to the cold store
(arena.store.cold) once it was old (arena.services.tiering) or that its competition's
retention dropped (arena.services.retention): the match's ``log_state`` says which."""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from arena.base.errors import Gone, NotFound
from arena.base.states import LogState, MatchStatus
from arena.referee.log import MatchLog
from arena.store.models import MatchSeat, StoredLog, TournamentMatch

if TYPE_CHECKING:
    from arena.store.cold import ColdStore


def encode(log: MatchLog) -> bytes:
    """A log as stored: its JSON (docs/match-log.md), compressed."""
    return zlib.compress(json.dumps(log.to_dict(), separators=(",", ":")).encode(), 1)


def decode(blob: bytes) -> dict[str, Any]:
    """A stored log's JSON data (read it as arena.referee.log.MatchLog)."""
    data: dict[str, Any] = json.loads(zlib.decompress(blob))
    return data


# ------------------------------------------------------------------ hot and cold
def blob(session: Session, match_id: int) -> bytes | None:
    """A match's stored log, from the database while it is young, else from the cold
    store the session's database reads (None: the match has no log)."""
    row = session.execute(
        select(TournamentMatch.log_state, StoredLog.data)
        .outerjoin(StoredLog, StoredLog.match_id == TournamentMatch.id)
        .where(TournamentMatch.id == match_id)
    ).first()
    if row is None:
        return None
    if row.log_state is LogState.DROPPED:
        raise Gone.of("logs.dropped", match=match_id)
    if row.data is not None:
        return bytes(row.data)
    if row.log_state is not LogState.COLD:
        return None
    cold: ColdStore | None = session.info.get("cold")
    if cold is None:
        raise NotFound.of("logs.no_cold_store", match=match_id)
    return cold.get(cold_key(match_id))


def cold_key(match_id: int) -> str:
    """Where a match's log goes in the cold store (one key a match: moving it again
    writes the same object, never a second one)."""
    return f"logs/{match_id // 10_000:06d}/{match_id}.json.z"


def hot_before(session: Session, moment: datetime, limit: int) -> list[tuple[int, bytes]]:
    """Logs still in the database of matches that finished before ``moment``, the
    oldest match first: (match id, stored bytes)."""
    rows = session.execute(
        select(StoredLog.match_id, StoredLog.data)
        .join(TournamentMatch, TournamentMatch.id == StoredLog.match_id)
        .where(StoredLog.data.is_not(None), TournamentMatch.finished_at < moment)
        .order_by(StoredLog.match_id)
        .limit(limit)
    ).all()
    return [(match_id, bytes(data)) for match_id, data in rows if data is not None]


def mark_cold(session: Session, match_id: int) -> bool:
    """The log's row leaves the database (its object is in the cold store under its
    :func:`cold_key`); False when another mover did it first, or retention dropped it.
    The match's row is taken first, as :func:`mark_dropped` takes it."""
    hot = select(StoredLog.match_id).where(
        StoredLog.match_id == match_id, StoredLog.data.is_not(None)
    )
    marked = session.execute(
        update(TournamentMatch)
        .where(
            TournamentMatch.id == match_id,
            TournamentMatch.log_state.is_(None),
            hot.exists(),
        )
        .values(log_state=LogState.COLD)
    )
    if not getattr(marked, "rowcount", 0):
        return False
    session.execute(delete(StoredLog).where(StoredLog.match_id == match_id))
    return True


# ------------------------------------------------------------------ retention
@dataclass(frozen=True)
class Swept:
    """A recorded match as retention's sweep finds it: when it finished, and whether one
    of the entries whose logs all stay sat at its table."""

    match_id: int
    finished_at: datetime | None
    kept: bool


def next_to_sweep(
    session: Session, tournament_id: int, after: int, kept: set[int], limit: int
) -> list[Swept]:
    """The tournament's recorded matches after match ``after``, in match order (at most
    ``limit``)."""
    seated = (
        select(MatchSeat.match_id)
        .where(MatchSeat.match_id == TournamentMatch.id, MatchSeat.bot_version_id.in_(kept))
        .exists()
    )
    rows = session.execute(
        select(TournamentMatch.id, TournamentMatch.finished_at, seated)
        .where(
            TournamentMatch.tournament_id == tournament_id,
            TournamentMatch.id > after,
            TournamentMatch.status == MatchStatus.DONE,
        )
        .order_by(TournamentMatch.id)
        .limit(limit)
    ).all()
    return [Swept(match_id, finished, bool(held)) for match_id, finished, held in rows]


def mark_dropped(session: Session, match_id: int) -> bool:
    """The log is dropped: its data leaves the database, and a row without data stays
    for the cold object that may hold it until that object is deleted
    (:func:`forget_objects`); False when another pass did it first."""
    dropped = session.execute(
        update(TournamentMatch)
        .where(
            TournamentMatch.id == match_id,
            TournamentMatch.log_state.is_distinct_from(LogState.DROPPED),
        )
        .values(log_state=LogState.DROPPED)
    )
    if not getattr(dropped, "rowcount", 0):
        return False
    kept = session.execute(
        update(StoredLog).where(StoredLog.match_id == match_id).values(data=None, size=0)
    )
    if not getattr(kept, "rowcount", 0):
        session.add(StoredLog(match_id=match_id, data=None, size=0))
    return True


def objects_to_delete(session: Session, limit: int) -> list[tuple[int, str]]:
    """Dropped logs whose cold object may still exist: (match id, key), through their
    partial index (a handful at any time, however many logs were dropped)."""
    found = session.scalars(
        select(StoredLog.match_id)
        .where(StoredLog.data.is_(None))
        .order_by(StoredLog.match_id)
        .limit(limit)
    ).all()
    return [(match_id, cold_key(match_id)) for match_id in found]


def forget_objects(session: Session, match_ids: list[int]) -> None:
    """Those dropped logs' cold objects are deleted: nothing is left of them."""
    session.execute(
        delete(StoredLog).where(StoredLog.match_id.in_(match_ids), StoredLog.data.is_(None))
    )


def is_dropped(session: Session, match_id: int) -> bool:
    state = session.scalar(select(TournamentMatch.log_state).where(TournamentMatch.id == match_id))
    return state is LogState.DROPPED
