"""The collusion report's running totals: what each bot version did about each other one
in a tournament (arena.fairplay.counting), and read back as the report's input.

A recorded match keeps its rows, merged and compressed before the write lock, as one
blob in the recording transaction (``fairplay_pending``: one insert per batch; building
and upserting its rows under the lock cost a third of the recording's time). A fold
adds pending blobs to the totals and deletes them in one transaction: the workers'
reconciler folds every pass, and a report folds its tournament first, so it always
counts every recorded match exactly once."""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

from sqlalchemy import Connection, func, select
from sqlalchemy.orm import Session

from arena.base.errors import NotFound
from arena.base.states import MatchStatus
from arena.fairplay.counting import Tally, match_tallies
from arena.store.db import Database
from arena.store.models import (
    BotVersion,
    FairPlayCount,
    FairPlayPending,
    MatchSeat,
    RegisteredBot,
    Tournament,
    TournamentMatch,
    table_of,
)

if TYPE_CHECKING:
    pass

_counts, _pending = table_of(FairPlayCount), table_of(FairPlayPending)


#: a row of totals to add: (tournament, chance, actor, other, stratum), (chances, taken)
Row = tuple[tuple[int, str, int, int, str], tuple[int, int]]

#: the upsert, in the SQL SQLite and PostgreSQL share; sent to the driver as it is (a
#: match adds about 60 rows: SQLAlchemy's per-row parameter handling cost more than the
#: database took to write them)
_UPSERT = (
    "INSERT INTO fairplay_counts (tournament_id, chance, actor_version_id, other_version_id,"
    " stratum, chances, taken) VALUES ({marks}) ON CONFLICT (tournament_id, chance,"
    " actor_version_id, other_version_id, stratum) DO UPDATE SET"
    " chances = fairplay_counts.chances + excluded.chances,"
    " taken = fairplay_counts.taken + excluded.taken"
)


def rows(
    tournament_id: int,
    versions: Sequence[int],
    places: Sequence[int],
    tallies: Sequence[Tally],
) -> list[Row]:
    """What one match adds (arena.fairplay.counting.match_tallies), as rows."""
    return [
        (
            (tournament_id, str(tally.chance), tally.actor, tally.other, tally.stratum),
            (tally.chances, tally.taken),
        )
        for tally in match_tallies(versions, places, tallies)
    ]


def pack(added: list[Row]) -> bytes | None:
    """A match's rows, merged and compressed for :func:`keep` (done before the write
    lock is taken); None when there are none."""
    if not added:
        return None
    merged = [[*key, *counts] for key, counts in _merged(added).items()]
    return zlib.compress(json.dumps(merged, separators=(",", ":")).encode(), 1)


def keep(connection: Connection, tournament_id: int, packed: list[bytes | None]) -> None:
    """Keep recorded matches' packed rows for the next fold (in the recording
    transaction: one insert of a few small blobs)."""
    blobs = [{"tournament_id": tournament_id, "data": blob} for blob in packed if blob]
    if blobs:
        connection.execute(_pending.insert(), blobs)


def fold(session: Session, tournament_id: int | None = None) -> int:
    """Add the pending batches (of one tournament, or all) to the totals; how many."""
    connection = session.connection()
    query = select(_pending.c.id, _pending.c.data).order_by(_pending.c.id)
    if tournament_id is not None:
        query = query.where(_pending.c.tournament_id == tournament_id)
    if connection.dialect.name == "postgresql":  # two folds never take the same batch
        query = query.with_for_update(skip_locked=True)
    found = connection.execute(query).all()
    if not found:
        return 0
    added: list[Row] = [
        ((t, chance, actor, other, stratum), (chances, taken))
        for row in found
        for t, chance, actor, other, stratum, chances, taken in json.loads(
            zlib.decompress(row.data)
        )
    ]
    add(connection, added)
    connection.execute(_pending.delete().where(_pending.c.id.in_([row.id for row in found])))
    return len(found)


def _merged(added: list[Row]) -> dict[tuple[int, str, int, int, str], list[int]]:
    merged: dict[tuple[int, str, int, int, str], list[int]] = {}
    for key, (chances, taken) in added:
        total = merged.get(key)
        if total is None:
            merged[key] = [chances, taken]
        else:
            total[0] += chances
            total[1] += taken
    return merged


def add(connection: Connection, added: list[Row]) -> None:
    """Add rows to the totals (one statement for all of them, a row per key: an upsert
    cannot touch the same row twice in one statement)."""
    mark = "?" if connection.dialect.paramstyle == "qmark" else "%s"
    connection.exec_driver_sql(
        _UPSERT.format(marks=", ".join([mark] * 7)),
        [(*key, chances, taken) for key, (chances, taken) in _merged(added).items()],
    )


def totals(session: Session, tournament_id: int) -> list[Tally]:
    """Every running total of a tournament, as the report reads them (fold first)."""
    found = session.execute(select(_counts).where(_counts.c.tournament_id == tournament_id))
    return [
        Tally(row.chance, row.actor_version_id, row.other_version_id, row.stratum,
              row.chances, row.taken)
        for row in found
    ]  # fmt: skip


def matches_together(
    session: Session, tournament_id: int, versions: Sequence[int], limit: int = 20
) -> list[int]:
    """The latest recorded matches of a tournament where all of ``versions`` sat."""
    return list(
        session.scalars(
            select(MatchSeat.match_id)
            .join(TournamentMatch, TournamentMatch.id == MatchSeat.match_id)
            .where(
                TournamentMatch.tournament_id == tournament_id,
                TournamentMatch.status == MatchStatus.DONE,
                MatchSeat.bot_version_id.in_(versions),
            )
            .group_by(MatchSeat.match_id)
            .having(func.count(func.distinct(MatchSeat.bot_version_id)) == len(set(versions)))
            .order_by(MatchSeat.match_id.desc())
            .limit(limit)
        )
    )


def fold_tournament(db: Database, name: str) -> int:
    """Fold the tournament's pending batches (so every recorded match counts); its id."""

    def folded(session: Session) -> int:
        found = session.scalar(select(Tournament.id).where(Tournament.name == name))
        if found is None:
            raise NotFound.of("name.missing", what="tournament", name=name)
        fold(session, found)
        return found

    return db.transaction(folded)


def names(session: Session, versions: set[int]) -> dict[int, str]:
    """Each version's registered name: the bot's, with its version when not the first."""
    rows = session.execute(
        select(BotVersion.id, RegisteredBot.name, BotVersion.number)
        .join(RegisteredBot, RegisteredBot.id == BotVersion.bot_id)
        .where(BotVersion.id.in_(versions))
    )
    return {row.id: row.name if row.number == 1 else f"{row.name} v{row.number}" for row in rows}
