"""The collusion report's running totals: what each bot version did about each other one
in a tournament (arena.fairplay.counting), and read back as the report's input.

A recorded match keeps its rows, merged and compressed before the write lock, as one
blob in the recording transaction (``fairplay_pending``: one insert per batch; building
and upserting its rows under the lock cost a third of the recording's time). A fold
adds pending blobs to the totals and deletes them in one transaction: the workers'
reconciler folds every pass, and a report folds its tournament first, so it always
counts every recorded match exactly once.

The totals are kept a row per pair of versions (``fairplay_pairs``), every situation of
the pair packed in it: kept a row per situation, a season of a thousand bots held 30
million rows (3.8 KB a match) after a million matches, and more with every match, since
a pair is counted beside each third bot it sat with (``arena bench season``).
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, func, select, text, tuple_
from sqlalchemy.orm import Session

from arena.base.errors import NotFound
from arena.base.states import MatchStatus
from arena.fairplay.counting import Tally, match_tallies
from arena.store.db import Database, upsert
from arena.store.models import (
    BotVersion,
    FairPlayPair,
    FairPlayPending,
    MatchSeat,
    RegisteredBot,
    Tournament,
    TournamentMatch,
    table_of,
)
from arena.store.pair_packing import Entries, add_to, unpack_pair

_pairs, _pending = table_of(FairPlayPair), table_of(FairPlayPending)


#: a row of totals to add: (tournament, chance, actor, other, stratum), (chances, taken)
Row = tuple[tuple[int, str, int, int, str], tuple[int, int]]

#: a total's side of its pair: the lower version decided, the higher one, or a version
#: about itself (its own places)
LOW, HIGH, ALONE = 0, 1, 2
#: pairs read at once while folding
_PAIRS_AT_ONCE = 500
#: the advisory lock a fold holds on PostgreSQL (a pair's totals are read, added to and
#: written back: two folds at once would lose one's additions)
_FOLD_LOCK = 0x66_6F_6C_64


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
    if connection.dialect.name == "postgresql":  # one fold at a time, to the end
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _FOLD_LOCK})
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
    """Add rows to the totals: each pair's row read, added to and written back (a fold
    holds the lock that keeps another from doing so at once)."""
    by_pair: dict[tuple[int, int, int], Entries] = {}
    for (tournament, chance, actor, other, stratum), counts in _merged(added).items():
        low, high, side = _side(actor, other)
        by_pair.setdefault((tournament, low, high), {})[chance, side, stratum] = counts
    keys = list(by_pair)
    for first in range(0, len(keys), _PAIRS_AT_ONCE):
        chunk = keys[first : first + _PAIRS_AT_ONCE]
        held = {
            (row.tournament_id, row.low_version_id, row.high_version_id): row.data
            for row in _held(connection, chunk)
        }
        _write(connection, [(*key, add_to(held.get(key), by_pair[key])) for key in chunk])


def _held(connection: Connection, keys: list[tuple[int, int, int]]) -> Sequence[Any]:
    """The rows held of these pairs: on PostgreSQL joined to the keys as arrays (a
    condition per key costs more to plan than the rows take to read), else by row value."""
    if connection.dialect.name == "postgresql":
        tournament, low, high = (list(column) for column in zip(*keys, strict=True))
        return connection.execute(
            text(
                "SELECT p.* FROM fairplay_pairs p JOIN unnest(CAST(:t AS int[]), "
                "CAST(:l AS int[]), CAST(:h AS int[])) AS k(t, l, h) ON p.tournament_id = k.t "
                "AND p.low_version_id = k.l AND p.high_version_id = k.h"
            ),
            {"t": tournament, "l": low, "h": high},
        ).all()
    pair = tuple_(_pairs.c.tournament_id, _pairs.c.low_version_id, _pairs.c.high_version_id)
    return connection.execute(select(_pairs).where(pair.in_(keys))).all()


def _write(connection: Connection, rows: list[tuple[int, int, int, bytes]]) -> None:
    """Each pair's row written (in place of the one held); on PostgreSQL in one
    statement over arrays (a statement per row cost more than the database's work)."""
    if connection.dialect.name == "postgresql":
        tournament, low, high, data = (list(column) for column in zip(*rows, strict=True))
        connection.execute(
            text(
                "INSERT INTO fairplay_pairs (tournament_id, low_version_id, high_version_id, "
                "data) SELECT * FROM unnest(CAST(:t AS int[]), CAST(:l AS int[]), "
                "CAST(:h AS int[]), CAST(:d AS bytea[])) ON CONFLICT (tournament_id, "
                "low_version_id, high_version_id) DO UPDATE SET data = excluded.data"
            ),
            {"t": tournament, "l": low, "h": high, "d": data},
        )
        return
    statement = upsert(connection.dialect, _pairs)
    connection.execute(
        statement.on_conflict_do_update(
            index_elements=["tournament_id", "low_version_id", "high_version_id"],
            set_={"data": statement.excluded.data},
        ),
        [{"tournament_id": t, "low_version_id": low, "high_version_id": high, "data": data}
         for t, low, high, data in rows],
    )  # fmt: skip


def _side(actor: int, other: int) -> tuple[int, int, int]:
    """The pair a total belongs to (lower version first) and which side decided."""
    if actor == other:
        return actor, other, ALONE
    return (actor, other, LOW) if actor < other else (other, actor, HIGH)


def totals(session: Session, tournament_id: int) -> list[Tally]:
    """Every running total of a tournament, as the report reads them (fold first)."""
    found = session.execute(select(_pairs).where(_pairs.c.tournament_id == tournament_id))
    read = []
    for row in found:
        low, high = row.low_version_id, row.high_version_id
        for (chance, side, stratum), (chances, taken) in unpack_pair(row.data).items():
            actor, other = (high, low) if side == HIGH else (low, high)
            read.append(Tally(chance, actor, other, stratum, chances, taken))
    return read


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
