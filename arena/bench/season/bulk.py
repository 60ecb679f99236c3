"""A season written in bulk as the recorder leaves it: ``COPY`` on PostgreSQL, many-row
inserts on SQLite; the fair play of its last matches kept and folded as the recorder and
the reconciler do, the ones' before summed in bulk (arena.bench.season.tallied)."""

from __future__ import annotations

import contextlib
import itertools
import random
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import Connection, Engine, func, insert, select, text, update

from arena.bench.season.played import SeasonMatch, Template, Totals, Walk, season_rows
from arena.bench.season.tallied import SeasonFairPlay
from arena.services.history import thin_histories
from arena.store import fairplay, logs, pairs
from arena.store.cold import ColdStore
from arena.store.db import Database
from arena.store.models import (
    Base,
    Entry,
    FairPlayPair,
    Tournament,
    TournamentMatch,
    now,
    table_of,
)
from arena.tournament import seeds

_pairs = table_of(FairPlayPair)
#: matches written a transaction (and a progress step)
CHUNK = 20_000
#: the season's last matches, whose fair play is kept and folded as the workers fold it,
#: after the totals of the ones before are written in bulk: most pairs' rows are read
#: and rewritten once, as a running season's rows are (it leaves their slack)
FOLDED = 100_000


class BulkWriter:
    """Rows into tables, in bulk: ``COPY`` on PostgreSQL, many-row inserts on SQLite."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.postgres = engine.dialect.name == "postgresql"

    def write(self, rows_by_table: dict[str, list[dict[str, Any]]]) -> None:
        """Everything in one transaction."""
        if self.postgres:
            with self._cursor() as cursor:
                for name, rows in rows_by_table.items():
                    _copy(cursor, name, rows)
            return
        with self.engine.begin() as connection:
            for name, rows in rows_by_table.items():
                if rows:
                    connection.execute(insert(Base.metadata.tables[name]), rows)

    def add_up(self, name: str, rows: list[dict[str, Any]], counts: tuple[str, ...]) -> None:
        """Add running totals to a table's (PostgreSQL): copied into a temporary table,
        then one upsert adds each row's ``counts`` to the row it meets."""
        if not rows:
            return
        columns = ", ".join(rows[0])
        keys = ", ".join(column for column in rows[0] if column not in counts)
        added = ", ".join(f"{c} = {name}.{c} + excluded.{c}" for c in counts)
        with self._cursor() as cursor:
            cursor.execute(
                f"CREATE TEMPORARY TABLE added (LIKE {name} INCLUDING DEFAULTS) ON COMMIT DROP"
            )
            _copy(cursor, "added", rows)
            cursor.execute(
                f"INSERT INTO {name} ({columns}) SELECT {columns} FROM added "
                f"ON CONFLICT ({keys}) DO UPDATE SET {added}"
            )

    @contextlib.contextmanager
    def _cursor(self) -> Iterator[Any]:
        """A cursor of the driver's own (``COPY``), its transaction committed at the end."""
        raw = self.engine.raw_connection()
        try:
            with raw.driver_connection.cursor() as cursor:  # type: ignore[union-attr]
                yield cursor
            raw.commit()
        finally:
            raw.close()


def _copy(cursor: Any, name: str, rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    columns = list(rows[0])
    quoted = ", ".join(f'"{column}"' for column in columns)
    with cursor.copy(f"COPY {name} ({quoted}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row([row[column] for column in columns])


@dataclass
class Filled:
    """What the fill wrote: how long it took and which matches' pages to read."""

    seconds: float
    hot: list[int]
    cold: list[int]
    hot_log_bytes: int
    cold_log_bytes: int


def fill(
    db: Database,
    cold: ColdStore,
    tournament_id: int,
    pool: list[Template],
    count: int,
    days: float,
    hot_days: float,
    sampled: int,
    progress: Callable[[int], None],
    seed: int = 0,
    folded: int = FOLDED,
    chunk_size: int = CHUNK,
) -> Filled:
    """Write ``count`` matches of the competition, finishing evenly over ``days`` up to
    now, and the totals they add up to (its entries, head-to-head, fair play: the last
    ``folded`` matches' as the workers fold it, the ones' before summed in bulk)."""
    began = time.perf_counter()
    rng = random.Random(seed)
    with db.engine.connect() as connection:
        season = season_start(connection, tournament_id)
    versions = season.versions
    walk, totals = Walk(versions, season.start, seed), Totals()
    writer = BulkWriter(db.engine)
    summed_until = max(0, count - folded) // chunk_size * chunk_size
    summed = SeasonFairPlay(pool, summed_until)
    table_size = len(pool[0].seats)
    moment, span = now(), timedelta(days=days)
    hot_from = moment - timedelta(days=hot_days)
    chosen = set(rng.sample(range(count), min(count, 2 * sampled)))
    hot: list[int] = []
    cold_ids: list[int] = []
    hot_bytes = cold_bytes = 0
    for first in range(0, count, chunk_size):
        if first == summed_until and summed_until:
            write_pair_rows(db, writer, tournament_id, summed.rows(tournament_id))
        chunk: list[tuple[SeasonMatch, list[tuple[float, float]], bool]] = []
        for n in range(first, min(count, first + chunk_size)):
            template = rng.randrange(len(pool))
            match = SeasonMatch(
                match_id=season.next_id + n,
                tournament_id=tournament_id,
                index=season.next_index + n,
                completion=season.next_completion + n,
                versions=rng.sample(versions, table_size),
                template=pool[template],
                finished_at=moment - span + span * ((n + 1) / count),
                seed=seeds.match_seed(season.key, str(season.next_index + n)),
            )
            is_cold = match.finished_at < hot_from
            chunk.append((match, walk.after(match.versions), is_cold))
            totals.add(match)
            if n < summed_until:
                summed.add(template, match.versions)
            if is_cold:
                cold_bytes += len(match.template.blob)
            else:
                hot_bytes += len(match.template.blob)
            if n in chosen:
                (cold_ids if is_cold else hot).append(match.match_id)
                if is_cold:
                    cold.put(logs.cold_key(match.match_id), match.template.blob)
        write_chunk(db, writer, tournament_id, chunk, fair_play=first >= summed_until)
        progress(min(count, first + chunk_size))
    if summed_until == count and count:  # every match's fair play summed: none folded
        write_pair_rows(db, writer, tournament_id, summed.rows(tournament_id))
    write_totals(db, writer, tournament_id, totals, walk.now, count)
    return Filled(time.perf_counter() - began, hot, cold_ids, hot_bytes, cold_bytes)


@dataclass(frozen=True)
class SeasonStart:
    """Where a competition's season goes on from: its versions, their start rating,
    its secret key, and its next match id, index and completion number."""

    versions: list[int]
    start: tuple[float, float]
    key: str
    next_id: int
    next_index: int
    next_completion: int


def write_chunk(
    db: Database,
    writer: BulkWriter,
    tournament_id: int,
    chunk: list[tuple[SeasonMatch, list[tuple[float, float]], bool]],
    fair_play: bool = True,
) -> None:
    """Write matches (each with its seats' ratings after it and whether its log is cold) as
    the recorder leaves them; with ``fair_play``, their fair play kept as one pending
    batch and folded into the totals as the workers' reconciler folds it (else it is
    summed in bulk: :class:`SeasonFairPlay`)."""
    rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
    played: list[fairplay.Row] = []
    for match, rated, is_cold in chunk:
        for name, added in season_rows(match, rated, is_cold).items():
            rows[name].extend(added)
        if fair_play:
            places, tallies = match.template.places, match.template.tallies
            played.extend(fairplay.rows(tournament_id, match.versions, places, tallies))
    packed = fairplay.pack(played)
    if packed is not None:
        rows["fairplay_pending"].append({"tournament_id": tournament_id, "data": packed})
    writer.write(rows)
    if fair_play:
        db.transaction(lambda session: fairplay.fold(session, tournament_id))


def write_pair_rows(
    db: Database,
    writer: BulkWriter,
    tournament_id: int,
    rows: Iterable[tuple[int, int, int, bytes]],
    batch: int = 10_000,
) -> None:
    """Write the summed pairs' rows of a competition that has none yet (each batch its
    own transaction)."""
    with db.engine.connect() as connection:
        held = connection.scalar(
            select(func.count()).where(_pairs.c.tournament_id == tournament_id)
        )
    if held:
        raise ValueError(f"the competition already holds {held} fair-play pairs' rows")
    remaining = iter(rows)
    while part := list(itertools.islice(remaining, batch)):
        writer.write(
            {"fairplay_pairs": [
                {"tournament_id": t, "low_version_id": low, "high_version_id": high, "data": data}
                for t, low, high, data in part
            ]}
        )  # fmt: skip


def season_start(connection: Connection, tournament_id: int) -> SeasonStart:
    versions = list(
        connection.scalars(
            select(Entry.bot_version_id)
            .where(Entry.tournament_id == tournament_id)
            .order_by(Entry.bot_version_id)  # the same season from the same seed, anywhere
        )
    )
    start = connection.execute(
        select(Entry.mu, Entry.sigma).where(Entry.tournament_id == tournament_id).limit(1)
    ).one()
    next_id = (connection.scalar(select(func.max(TournamentMatch.id))) or 0) + 1
    next_index = (
        connection.scalar(
            select(func.max(TournamentMatch.index)).where(
                TournamentMatch.tournament_id == tournament_id
            )
        )
        or 0
    ) + 1
    tournament = connection.execute(
        select(Tournament.completed, Tournament.secret_key).where(Tournament.id == tournament_id)
    ).one()
    return SeasonStart(
        versions,
        (start.mu, start.sigma),
        tournament.secret_key,
        next_id,
        next_index,
        (tournament.completed or 0) + 1,
    )


def write_totals(
    db: Database,
    writer: BulkWriter,
    tournament_id: int,
    totals: Totals,
    final: dict[int, tuple[float, float]],
    count: int,
) -> None:
    """Add ``count`` matches' totals to what the tables hold (the recorder's upserts,
    once), and each entry's ``final`` rating."""
    pair_rows = [
        {"tournament_id": t, "low_version_id": low, "high_version_id": high, **counts}
        for (t, low, high), counts in totals.pairs.items()
    ]
    with db.engine.begin() as connection:
        entries = table_of(Entry)
        for version, added in totals.entries.items():
            mu, sigma = final[version]
            connection.execute(
                update(entries)
                .where(entries.c.tournament_id == tournament_id)
                .where(entries.c.bot_version_id == version)
                .values(
                    mu=mu,
                    sigma=sigma,
                    **{name: entries.c[name] + value for name, value in added.items()},
                )
            )
        connection.execute(
            update(table_of(Tournament))
            .where(table_of(Tournament).c.id == tournament_id)
            .values(completed=table_of(Tournament).c.completed + count)
        )
        if not writer.postgres:
            pairs.add(connection, pair_rows)
    if writer.postgres:
        writer.add_up("pair_results", pair_rows, pairs.COUNTS)
        with db.engine.begin() as connection:
            for name in ("matches", "rating_history"):  # the tables keyed by a serial id
                connection.execute(
                    text(
                        f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), "
                        f"(SELECT max(id) FROM {name}))"
                    )
                )
        settle(db)


def settle(db: Database) -> None:
    """What a season's database is like after its autovacuum and checkpoints, on
    PostgreSQL: vacuumed and analysed, and the fill's writes flushed (a recorder timed
    while the checkpointer wrote out gigabytes measured the checkpointer)."""
    with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.execute(text("VACUUM (ANALYZE)"))
        with contextlib.suppress(Exception):  # CHECKPOINT needs a superuser's right
            connection.execute(text("CHECKPOINT"))


@dataclass(frozen=True)
class Thinned:
    """The rating histories thinned: the updates removed, and the time it took."""

    removed: int
    seconds: float


def thin_season(db: Database) -> Thinned:
    """Thin every version's rating history as the workers' reconciler does, then give
    the space back (a running season's next inserts reuse it; the bench's table sizes
    count what is held, not what is free)."""
    began = time.perf_counter()
    removed = thin_histories(db)
    seconds = time.perf_counter() - began
    if db.engine.dialect.name == "postgresql":  # SQLite's sizes count only pages in use
        with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.execute(text("VACUUM FULL rating_history"))
        settle(db)
    return Thinned(removed, seconds)
