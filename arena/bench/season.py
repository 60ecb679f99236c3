"""A season at full size: ``bots`` bots and ``matches`` matches in one competition,
written in bulk as the recorder leaves them, then every public page and read timed cold
and warm, the recorder's rate beside the season, and what a match costs hot and cold.

The season's matches are drawn from a pool of really played matches (their logs, seat
results and fair-play tallies), re-seated at random tables of the competition's bots;
each is written as :mod:`arena.store.results` records one (``season_rows`` builds the
same rows: a test holds one written both ways equal). Ratings follow each bot's own
walk towards a skill of its own instead of TrueSkill (a millisecond a match is hours
at this size); everything else is the recorder's arithmetic. Matches finish evenly
over ``days``; logs older than the platform's hot days are in the cold store, as the
tiering leaves them (their objects are written for the matches whose pages are read).
"""

from __future__ import annotations

import contextlib
import random
import statistics
import time
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Engine, Table, func, insert, select, text, update

from arena.base import aio
from arena.base.jobs import new_job_id
from arena.base.states import BotKind, MatchStatus
from arena.bench.local import local_platform
from arena.engine import Ruleset
from arena.fairplay.counting import Tally
from arena.platform import Platform
from arena.referee import LocalSeat, Referee, RefereeSettings
from arena.referee.log import MatchLog
from arena.referee.style import STYLE_FIELDS
from arena.store import bots as bot_store
from arena.store import competitions, fairplay, leases, logs, owners, pairs, results
from arena.store.cold import ColdStore
from arena.store.db import Database
from arena.store.models import (
    Entry,
    FairPlayPending,
    MatchSeat,
    PairResult,
    RatingChange,
    StoredLog,
    Tournament,
    TournamentMatch,
    now,
    table_of,
)
from arena.tournament import seeds
from sample_bots import NAMES, SAMPLES

with warnings.catch_warnings():  # starlette's notice about httpx; the client works as is
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi.testclient import TestClient

#: really played matches the season's rows are drawn from
POOL = 200
#: bots an owner holds (the owners' pages)
BOTS_AN_OWNER = 10
#: new apps each page is read cold in (a restart each)
COLD_APPS = 3
#: matches written a transaction (and a progress step)
CHUNK = 20_000
#: the tables whose rows grow with the matches (a match's bytes)
SEASON_TABLES = (
    "matches",
    "seats",
    "rating_history",
    "match_logs",
    "pair_results",
    "fairplay_pairs",
)
_matches, _seats, _ratings, _logs = (
    table_of(TournamentMatch),
    table_of(MatchSeat),
    table_of(RatingChange),
    table_of(StoredLog),
)


# ------------------------------------------------------------------ a played match, re-seated
@dataclass(frozen=True)
class Template:
    """A really played match: its log, stored bytes, seats' results and tallies."""

    log: MatchLog
    blob: bytes
    seats: list[dict[str, Any]]
    tallies: tuple[Tally, ...]
    referee_ms: float

    @property
    def places(self) -> list[int]:
        return [seat["place"] for seat in self.seats]


def played_pool(rules: Ruleset, size: int, table_size: int, seed: int = 0) -> list[Template]:
    """``size`` matches of the samples, played here by the referee."""
    rng, pool = random.Random(seed), []
    for index in range(size):
        names = [rng.choice(NAMES) for _ in range(table_size)]
        seats = [LocalSeat(SAMPLES[name](), f"{name}-{s}") for s, name in enumerate(names)]
        referee = Referee(rules, seats, f"season/{index}", RefereeSettings())
        began = time.perf_counter()
        log = aio.run(referee.run())
        referee_ms = (time.perf_counter() - began) * 1000
        pool.append(
            Template(
                log,
                logs.encode(log),
                results.seat_results(log, {}),
                tuple(referee.fairplay.tallies()),
                round(referee_ms, 3),
            )
        )
    return pool


@dataclass
class SeasonMatch:
    """One season match to write: where it sits and when it was played."""

    match_id: int
    tournament_id: int
    index: int
    completion: int
    versions: list[int]
    template: Template
    finished_at: datetime
    seed: str
    worker: str = "season-worker"


def season_rows(
    match: SeasonMatch, ratings: Sequence[tuple[float, float]], cold_key: str | None
) -> dict[str, list[dict[str, Any]]]:
    """The rows the platform holds for a recorded match (the scheduler's, the claim's and
    the recorder's), by table; ``ratings`` by seat after it; ``cold_key``: its log moved
    to the cold store under that key (None: still in the database)."""
    played, finished = match.template, match.finished_at
    started = finished - timedelta(milliseconds=played.referee_ms)
    row = {
        "id": match.match_id,
        "tournament_id": match.tournament_id,
        "index": match.index,
        "seed": match.seed,
        "deal_group": None,
        "round": None,
        "status": MatchStatus.DONE.value,
        "attempts": 1,
        "job_id": new_job_id(match.match_id),
        "worker": match.worker,
        "claim": None,
        "lease_until": None,
        "queued_at": started,
        "started_at": started,
        "finished_at": finished,
        "completion": match.completion,
        "voided_at": None,
        "void_reason": None,
        "referee_ms": played.referee_ms,
        "error": None,
    }
    seats = [
        {"match_id": match.match_id, "seat": seat, "bot_version_id": version, **result}
        for seat, (version, result) in enumerate(zip(match.versions, played.seats, strict=True))
    ]
    rated = [
        {
            "tournament_id": match.tournament_id,
            "bot_version_id": version,
            "match_id": match.match_id,
            "completion": match.completion,
            "mu": mu,
            "sigma": sigma,
        }
        for version, (mu, sigma) in zip(match.versions, ratings, strict=True)
    ]
    log = {
        "match_id": match.match_id,
        "data": None if cold_key else played.blob,
        "size": len(played.blob),
        "cold_key": cold_key,
        "moved_at": finished if cold_key else None,
    }
    return {"matches": [row], "seats": seats, "rating_history": rated, "match_logs": [log]}


# ------------------------------------------------------------------ running totals
@dataclass
class Totals:
    """What the season's matches add up to: entries and head-to-head (their fair play is
    kept and folded as the recorder's: :func:`write_chunk`)."""

    entries: dict[int, dict[str, int]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(int))
    )
    pairs: dict[tuple[int, int, int], list[int]] = field(
        default_factory=lambda: defaultdict(lambda: [0, 0, 0])
    )

    def add(self, match: SeasonMatch) -> None:
        played = match.template
        places = played.places
        for version, seat in zip(match.versions, played.seats, strict=True):
            entry = self.entries[version]
            entry["games"] += 1
            entry["place_sum"] += seat["place"]
            entry["wins"] += int(seat["place"] == 1)
            entry["forfeits"] += int(seat["forfeit"])
            for name in ("strikes", "illegal", "decisions", *STYLE_FIELDS):
                entry[name] += seat[name]
        for row in pairs.rows(match.tournament_id, match.versions, places):
            pair = (row["tournament_id"], row["low_version_id"], row["high_version_id"])
            counts = self.pairs[pair]
            counts[0] += row["low_ahead"]
            counts[1] += row["high_ahead"]
            counts[2] += row["level"]


class Walk:
    """Each bot's rating after each of its matches: a walk from the start towards a
    skill of its own, its sigma shrinking as it plays (TrueSkill's shape, not its sums)."""

    def __init__(self, versions: Sequence[int], start: tuple[float, float], seed: int) -> None:
        rng = random.Random(seed)
        self.rng = rng
        self.skill = {v: rng.gauss(start[0], start[1] / 2) for v in versions}
        self.now = {v: start for v in versions}

    def after(self, versions: Sequence[int]) -> list[tuple[float, float]]:
        rated = []
        for version in versions:
            mu, sigma = self.now[version]
            mu += (self.skill[version] - mu) * 0.02 + self.rng.gauss(0, sigma * 0.05)
            sigma = max(0.75, sigma * 0.995)
            self.now[version] = (mu, sigma)
            rated.append((mu, sigma))
        return rated


# ------------------------------------------------------------------ writing in bulk
class BulkWriter:
    """Rows into tables, in bulk: ``COPY`` on PostgreSQL, many-row inserts on SQLite."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.postgres = engine.dialect.name == "postgresql"

    def write(self, rows_by_table: dict[str, list[dict[str, Any]]]) -> None:
        """Everything in one transaction."""
        if self.postgres:
            raw = self.engine.raw_connection()
            try:
                with raw.driver_connection.cursor() as cursor:  # type: ignore[union-attr]
                    for name, rows in rows_by_table.items():
                        _copy(cursor, name, rows)
                raw.commit()
            finally:
                raw.close()
            return
        with self.engine.begin() as connection:
            for name, rows in rows_by_table.items():
                if rows:
                    connection.execute(insert(_table(name)), rows)

    def add_up(self, name: str, rows: list[dict[str, Any]], counts: tuple[str, ...]) -> None:
        """Add running totals to a table's (PostgreSQL): copied straight in while the
        tournament has none there yet, else into a temporary table, then one upsert adds
        each row's ``counts`` to the row it meets."""
        if not rows:
            return
        columns = list(rows[0])
        keys = [column for column in columns if column not in counts]
        added = ", ".join(f"{c} = {name}.{c} + excluded.{c}" for c in counts)
        raw = self.engine.raw_connection()
        try:
            with raw.driver_connection.cursor() as cursor:  # type: ignore[union-attr]
                tournament = rows[0]["tournament_id"]
                cursor.execute(
                    f"SELECT 1 FROM {name} WHERE tournament_id = %s LIMIT 1", (tournament,)
                )
                if cursor.fetchone() is None and len({r["tournament_id"] for r in rows}) == 1:
                    _copy(cursor, name, rows)
                    raw.commit()
                    return
                cursor.execute(
                    f"CREATE TEMPORARY TABLE added (LIKE {name} INCLUDING DEFAULTS) ON COMMIT DROP"
                )
                _copy(cursor, "added", rows)
                cursor.execute(
                    f"INSERT INTO {name} ({', '.join(columns)}) SELECT {', '.join(columns)} "
                    f"FROM added ON CONFLICT ({', '.join(keys)}) DO UPDATE SET {added}"
                )
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


def _table(name: str) -> Table:
    return {
        "matches": _matches,
        "seats": _seats,
        "rating_history": _ratings,
        "match_logs": _logs,
        "pair_results": table_of(PairResult),
        "fairplay_pending": table_of(FairPlayPending),
    }[name]


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
) -> Filled:
    """Write ``count`` matches of the competition, finishing evenly over ``days`` up to
    now, and the totals they add up to (its entries, head-to-head, fair play)."""
    began = time.perf_counter()
    rng = random.Random(seed)
    with db.engine.connect() as connection:
        season = _season_start(connection, tournament_id)
    versions = season.versions
    walk, totals = Walk(versions, season.start, seed), Totals()
    writer = BulkWriter(db.engine)
    table_size = len(pool[0].seats)
    moment, span = now(), timedelta(days=days)
    hot_from = moment - timedelta(days=hot_days)
    chosen = set(rng.sample(range(count), min(count, 2 * sampled)))
    hot: list[int] = []
    cold_ids: list[int] = []
    hot_bytes = cold_bytes = 0
    for first in range(0, count, CHUNK):
        chunk: list[tuple[SeasonMatch, list[tuple[float, float]], str | None]] = []
        for n in range(first, min(count, first + CHUNK)):
            match = SeasonMatch(
                match_id=season.next_id + n,
                tournament_id=tournament_id,
                index=season.next_index + n,
                completion=season.next_completion + n,
                versions=rng.sample(versions, table_size),
                template=pool[rng.randrange(len(pool))],
                finished_at=moment - span + span * ((n + 1) / count),
                seed=seeds.match_seed(season.key, str(season.next_index + n)),
            )
            is_cold = match.finished_at < hot_from
            key = logs.cold_key(match.match_id) if is_cold else None
            chunk.append((match, walk.after(match.versions), key))
            totals.add(match)
            if is_cold:
                cold_bytes += len(match.template.blob)
            else:
                hot_bytes += len(match.template.blob)
            if n in chosen:
                (cold_ids if is_cold else hot).append(match.match_id)
                if key is not None:
                    cold.put(key, match.template.blob)
        write_chunk(db, writer, tournament_id, chunk)
        progress(min(count, first + CHUNK))
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
    chunk: list[tuple[SeasonMatch, list[tuple[float, float]], str | None]],
) -> None:
    """Write matches (each with its seats' ratings after it and its log's cold key) as
    the recorder leaves them, their fair play kept as one pending batch and folded into
    the totals as the workers' reconciler folds it."""
    rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
    played: list[fairplay.Row] = []
    for match, rated, cold_key in chunk:
        for name, added in season_rows(match, rated, cold_key).items():
            rows[name].extend(added)
        places = match.template.places
        played.extend(fairplay.rows(tournament_id, match.versions, places, match.template.tallies))
    packed = fairplay.pack(played)
    if packed is not None:
        rows["fairplay_pending"].append({"tournament_id": tournament_id, "data": packed})
    writer.write(rows)
    db.transaction(lambda session: fairplay.fold(session, tournament_id))


def _season_start(connection: Connection, tournament_id: int) -> SeasonStart:
    versions = list(
        connection.scalars(select(Entry.bot_version_id).where(Entry.tournament_id == tournament_id))
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
        {
            "tournament_id": t,
            "low_version_id": low,
            "high_version_id": high,
            "low_ahead": c[0],
            "high_ahead": c[1],
            "level": c[2],
        }
        for (t, low, high), c in totals.pairs.items()
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
        writer.add_up("pair_results", pair_rows, ("low_ahead", "high_ahead", "level"))
        with db.engine.begin() as connection:
            for name in ("matches", "seats", "rating_history"):
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


# ------------------------------------------------------------------ the competition
def competition(arena: Platform, bots: int, table_size: int) -> tuple[int, str, str]:
    """``bots`` bots of ``bots // BOTS_AN_OWNER`` owners entered in the default
    competition; its tournament's id and name, and the first owner's token."""

    def create(session: Any) -> str:
        token = ""
        names = []
        for o in range(max(1, bots // BOTS_AN_OWNER)):
            owner, secret = owners.add_owner(session, f"owner-{o:04d}")
            token = token or secret
            for b in range(BOTS_AN_OWNER):
                number = o * BOTS_AN_OWNER + b
                if number >= bots:
                    break
                name = f"bot-{number:04d}"
                bot_store.add_bot(
                    session, name, BotKind.SAMPLE, NAMES[number % len(NAMES)], owner.id
                )
                names.append(name)
        competitions.create(
            session, "main", Ruleset.parse("classic"), table_size, tables=4,
            bot_names=names, default=True, pace=None,
        )  # fmt: skip
        return token

    token = arena.db.transaction(create)
    with arena.db.read() as session:
        ladder = competitions.get(session, "main").tournament
        return ladder.id, ladder.name, token


# ------------------------------------------------------------------ the recorder's rate
def recorder_rate(
    db: Database, tournament_id: int, pool: list[Template], count: int, batch: int = 20
) -> float:
    """Matches a second the recorder writes (``record_all`` in batches of ``batch``, as
    a worker records a job's matches) into the competition as it stands."""
    with db.engine.connect() as connection:
        versions = _season_start(connection, tournament_id).versions
    rng = random.Random(1)
    table_size = len(pool[0].seats)

    def queue(session: Any) -> list[int]:
        start = (
            session.scalar(
                select(func.max(TournamentMatch.index)).where(
                    TournamentMatch.tournament_id == tournament_id
                )
            )
            or 0
        ) + 1
        made = [
            TournamentMatch.queued(
                tournament_id, start + n, f"rate/{start + n}", rng.sample(versions, table_size)
            )
            for n in range(count)
        ]
        session.add_all(made)
        session.flush()
        return [match.id for match in made]

    ids = db.transaction(queue)
    plans = leases.claim_all(db, ids, "season-recorder")
    played = [
        results.PlayedMatch(plan, t.log, t.referee_ms, fairplay=t.tallies)
        for plan, t in zip(plans, (rng.choice(pool) for _ in plans), strict=False)
    ]
    began = time.perf_counter()
    for first in range(0, len(played), batch):
        results.record_all(db, played[first : first + batch])
    return len(played) / (time.perf_counter() - began)


# ------------------------------------------------------------------ reading the pages
@dataclass(frozen=True)
class Page:
    """A public page or read, at ``urls`` (each read once cold, then warm)."""

    name: str
    urls: list[str]
    headers: dict[str, str] = field(default_factory=dict)


def pages(
    ladder: str, bots: int, hot: list[int], cold: list[int], token: str, count: int
) -> list[Page]:
    """Every public page and read of the season, ``count`` distinct addresses each where
    it has that many (bots, matches, deep list pages)."""
    rng = random.Random(2)
    some_bots = [f"bot-{rng.randrange(bots):04d}" for _ in range(count)]
    deep = [rng.choice(hot + cold) for _ in range(count)]
    owned = {"Authorization": f"Bearer {token}"}
    return [
        Page("home", ["/"]),
        Page("leaderboard (all bots)", ["/leaderboard"]),
        Page("the competition", ["/competitions/main"]),
        Page("tournament page (head-to-head)", [f"/tournaments/{ladder}"]),
        Page("leaderboard rows", [f"/tournaments/{ladder}/leaderboard"]),
        Page("leaders' rating chart", [f"/tournaments/{ladder}/chart"]),
        Page("a bot's page", [f"/bots/{b}" for b in some_bots]),
        Page("a bot's rating chart", [f"/bots/{b}/chart?tournament={ladder}" for b in some_bots]),
        Page("match list", ["/matches"]),
        Page("match list, one bot", [f"/matches?bot={b}" for b in some_bots]),
        Page("match list, page 100", [f"/matches?tournament={ladder}&page=100"]),
        Page(
            "match list, older than (keyset)",
            [f"/matches?tournament={ladder}&before={m}" for m in deep],
        ),
        Page("match page, young log", [f"/matches/{m}" for m in hot[:count]]),
        Page("match page, cold log", [f"/matches/{m}" for m in cold[:count]]),
        Page("API: the competition", ["/api/v1/competitions/main"]),
        Page("API: tournament", [f"/api/v1/tournaments/{ladder}"]),
        Page("API: bots", ["/api/v1/bots"]),
        Page(
            "API: matches, one bot",
            [f"/api/v1/matches?bot={b}&per_page=50" for b in some_bots],
        ),
        Page("API: a match", [f"/api/v1/matches/{m}" for m in hot[:count]]),
        Page("API: young log", [f"/api/v1/matches/{m}/log" for m in hot[:count]]),
        Page("API: cold log", [f"/api/v1/matches/{m}/log" for m in cold[:count]]),
        Page("API: owner's matches", ["/api/v1/owners/me/matches"], owned),
    ]


def read_pages(
    clients: Sequence[TestClient], found: list[Page], repeats: int
) -> dict[str, dict[str, Any]]:
    """Each page's times (ms): cold (each address's first read in each of ``clients``,
    each a new app), then warm (``repeats`` reads after, in the last)."""
    cold: dict[str, list[float]] = defaultdict(list)
    for client in clients:
        for page in found:
            cold[page.name] += [_timed(client, url, page.headers) for url in page.urls]
    figures = {}
    for page in found:
        warm = [
            _timed(clients[-1], page.urls[n % len(page.urls)], page.headers) for n in range(repeats)
        ]
        figures[page.name] = {
            "cold_p50_ms": _quantile(cold[page.name], 0.5),
            "cold_p99_ms": _quantile(cold[page.name], 0.99),
            "warm_p50_ms": _quantile(warm, 0.5),
            "warm_p99_ms": _quantile(warm, 0.99),
            "addresses": len(page.urls),
            "cold_reads": len(cold[page.name]),
        }
    return figures


def _timed(client: TestClient, url: str, headers: dict[str, str]) -> float:
    began = time.perf_counter()
    response = client.get(url, headers=headers)
    spent = (time.perf_counter() - began) * 1000
    if response.status_code != 200:
        raise RuntimeError(f"GET {url}: {response.status_code} {response.text[:200]}")
    return spent


def _quantile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    if len(ordered) == 1:
        return round(ordered[0], 2)
    return round(statistics.quantiles(ordered, n=100, method="inclusive")[int(q * 100) - 1], 2)


# ------------------------------------------------------------------ bytes
def table_bytes(db: Database) -> dict[str, int]:
    """Each season table's bytes on disk, its indexes included."""
    with db.engine.connect() as connection:
        if db.engine.dialect.name == "postgresql":
            return {
                name: int(connection.scalar(text(f"SELECT pg_total_relation_size('{name}')")))
                for name in SEASON_TABLES
            }
        return _sqlite_bytes(connection)


def _sqlite_bytes(connection: Connection) -> dict[str, int]:
    """From SQLite's dbstat table, a table's pages and its indexes'."""
    try:
        rows = connection.execute(
            text(
                "SELECT m.tbl_name AS owner, sum(s.pgsize) AS size FROM dbstat s "
                "JOIN sqlite_master m ON m.name = s.name GROUP BY m.tbl_name"
            )
        ).all()
    except Exception:  # a SQLite built without dbstat: the whole file, to one table
        size = connection.scalar(
            text("SELECT page_count * page_size FROM pragma_page_count, pragma_page_size")
        )
        return {"matches": int(size or 0)}
    sizes = {row.owner: int(row.size) for row in rows}
    return {name: sizes.get(name, 0) for name in SEASON_TABLES}


# ------------------------------------------------------------------ the bench
def run(
    bots: int = 1000,
    matches: int = 10_000_000,
    database_url: str | None = None,
    days: float = 100.0,
    recorded: int = 2000,
    addresses: int = 30,
    repeats: int = 50,
    progress: Callable[[str], None] | None = None,
    filling: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Fill a season, then measure it (see the module's docstring); ``filling(done,
    count)`` is told each chunk written."""
    say = progress or (lambda _: None)
    with local_platform("arena-bench-season-", database_url) as (arena, tmp):
        ladder_id, ladder, token = competition(arena, bots, 4)
        say(f"playing {POOL} matches to draw the season from")
        pool = played_pool(Ruleset.parse("classic"), POOL, 4)
        say(f"the recorder on an empty database: {recorded} matches")
        empty_rate = recorder_rate(arena.db, ladder_id, pool, recorded)
        before = sum(table_bytes(arena.db).values())
        say(f"writing {matches:,} matches")
        cold = ColdStore(arena.settings.cold_store_url())
        filled = fill(
            arena.db, cold, ladder_id, pool, matches, days, arena.settings.logs_hot_days,
            addresses, lambda done: (filling or (lambda d, c: None))(done, matches),
        )  # fmt: skip
        sizes = table_bytes(arena.db)
        say("reading every page, cold then warm")
        read = _read(arena, ladder, bots, filled, token, addresses, repeats)
        say(f"the recorder beside the season: {recorded} matches")
        season_rate = recorder_rate(arena.db, ladder_id, pool, recorded)
    season_bytes = sum(sizes.values()) - before
    hot_logs = filled.hot_log_bytes
    return {
        "database": arena.db.engine.dialect.name,
        "bots": bots,
        "matches": matches,
        "days": days,
        "hot_days": arena.settings.logs_hot_days,
        "fill_seconds": round(filled.seconds, 1),
        "fill_matches_per_s": round(matches / filled.seconds),
        "pages": read,
        "recorder_empty_per_s": round(empty_rate, 1),
        "recorder_season_per_s": round(season_rate, 1),
        "recorder_drop_percent": round(100 * (empty_rate - season_rate) / empty_rate, 1),
        "table_bytes": sizes,
        "bytes_a_match": round(season_bytes / matches),
        "bytes_a_match_tiered": round((season_bytes - hot_logs) / matches),
        "cold_bytes_a_match": round((filled.cold_log_bytes + hot_logs) / matches),
    }


def _read(
    arena: Platform,
    ladder: str,
    bots: int,
    filled: Filled,
    token: str,
    addresses: int,
    repeats: int,
) -> dict[str, dict[str, Any]]:
    """Every page through the app, cold in ``COLD_APPS`` new apps (a restart each: no
    page kept, no template compiled), then warm."""
    from dashboard.app import create_app

    found = pages(ladder, bots, filled.hot, filled.cold, token, addresses)
    with contextlib.ExitStack() as stack:
        clients = [
            stack.enter_context(_client(create_app(arena.settings))) for _ in range(COLD_APPS)
        ]
        return read_pages(clients, found, repeats)


@contextlib.contextmanager
def _client(app: Any) -> Iterator[TestClient]:
    with TestClient(app) as client:
        yield client
