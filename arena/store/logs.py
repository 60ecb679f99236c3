"""The stored form of a match log: compact JSON, zlib-compressed (level 1: a log
compresses about 6x and a worker records hundreds a second). Every reader and writer
of ``match_logs.data`` goes through here, and so does a log that moved to the cold store
(arena.store.cold) once it was old (arena.services.tiering) or that its competition's
retention dropped (arena.services.retention)."""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from arena.base.errors import Gone, NotFound
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
        select(StoredLog.data, StoredLog.cold_key, StoredLog.dropped_at).where(
            StoredLog.match_id == match_id
        )
    ).first()
    if row is None:
        return None
    if row.dropped_at is not None:
        raise Gone.of("logs.dropped", match=match_id)
    if row.data is not None:
        return bytes(row.data)
    cold: ColdStore | None = session.info.get("cold")
    if cold is None or row.cold_key is None:
        raise NotFound.of("logs.no_cold_store", match=match_id)
    return cold.get(row.cold_key)


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


def mark_cold(session: Session, match_id: int, key: str, moment: datetime) -> bool:
    """The log's data leaves the database (its object is in the cold store under
    ``key``); False when another mover did it first."""
    moved = session.execute(
        update(StoredLog)
        .where(StoredLog.match_id == match_id, StoredLog.data.is_not(None))
        .values(data=None, cold_key=key, moved_at=moment)
    )
    return bool(getattr(moved, "rowcount", 0))


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
    """The tournament's logs after match ``after``, in match order (at most ``limit``)."""
    seated = (
        select(MatchSeat.match_id)
        .where(MatchSeat.match_id == TournamentMatch.id, MatchSeat.bot_version_id.in_(kept))
        .exists()
    )
    rows = session.execute(
        select(StoredLog.match_id, TournamentMatch.finished_at, seated)
        .join(TournamentMatch, TournamentMatch.id == StoredLog.match_id)
        .where(TournamentMatch.tournament_id == tournament_id, StoredLog.match_id > after)
        .order_by(StoredLog.match_id)
        .limit(limit)
    ).all()
    return [Swept(match_id, finished, bool(held)) for match_id, finished, held in rows]


def mark_dropped(session: Session, match_id: int, moment: datetime) -> bool:
    """The log is dropped: its data leaves the database, and the row keeps the key of
    the cold object that may hold it until that object is deleted (:func:`forget_object`);
    False when another pass did it first."""
    dropped = session.execute(
        update(StoredLog)
        .where(StoredLog.match_id == match_id, StoredLog.dropped_at.is_(None))
        .values(data=None, cold_key=cold_key(match_id), dropped_at=moment)
    )
    return bool(getattr(dropped, "rowcount", 0))


def objects_to_delete(session: Session, limit: int) -> list[tuple[int, str]]:
    """Dropped logs whose cold object may still exist: (match id, key), through their
    partial index (a handful at any time, however many logs were dropped)."""
    rows = session.execute(
        select(StoredLog.match_id, StoredLog.cold_key)
        .where(StoredLog.dropped_at.is_not(None), StoredLog.cold_key.is_not(None))
        .order_by(StoredLog.match_id)
        .limit(limit)
    ).all()
    return [(match_id, key) for match_id, key in rows if key is not None]


def forget_objects(session: Session, match_ids: list[int]) -> None:
    """Those dropped logs' cold objects are deleted: nothing is left of them."""
    session.execute(
        update(StoredLog)
        .where(StoredLog.match_id.in_(match_ids), StoredLog.dropped_at.is_not(None))
        .values(cold_key=None)
    )


def is_dropped(session: Session, match_id: int) -> bool:
    moment = session.scalar(select(StoredLog.dropped_at).where(StoredLog.match_id == match_id))
    return moment is not None
