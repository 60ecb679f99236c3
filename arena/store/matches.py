"""Matches as the workers see them: claim, keep the lease, record once, or give back.

Exactly once: a worker may record a match only while it holds the match's current
claim (a random token set when it claimed the match). A job that runs twice, or a
worker that was presumed dead and comes back, finds its claim gone and its result is
discarded. Results, logs, ratings and completion numbers are written in one
transaction per batch of played matches (a worker records a job's matches together),
which locks the matches and then the tournament row, so concurrent workers apply
ratings one batch at a time, in completion order. In a duplicate tournament the
rating update belongs to the deal group: it is applied once, when the group's last
rotation is over, from the places each bot summed over the rotations.
"""

from __future__ import annotations

import json
import logging
import secrets
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cache, partial
from typing import Any

from sqlalchemy import Connection, Row, bindparam, func, select, update
from sqlalchemy.orm import Session

from arena import ratings
from arena.engine.match import places
from arena.store import pairs
from arena.store.db import Database
from arena.store.jobs import job_sizes, new_job_id
from arena.store.models import (
    Bot,
    BotKind,
    BotVersion,
    Entry,
    Match,
    MatchLog,
    MatchStatus,
    RatingChange,
    Seat,
    Tournament,
    TournamentFormat,
    TournamentStatus,
    now,
)
from arena.style import STYLE_FIELDS, style_counts

logger = logging.getLogger(__name__)

#: attempts before a match is failed: the first run and 3 retries
MAX_ATTEMPTS = 4
#: times a batch is rated again from a newer snapshot before it is written (TrueSkill
#: takes about a millisecond per match: better outside the write lock than under it)
RATE_AGAIN = 3
LEASE = timedelta(seconds=15)


@dataclass(frozen=True)
class SeatPlan:
    bot_version_id: int
    name: str
    kind: str
    target: str


@dataclass(frozen=True)
class MatchPlan:
    match_id: int
    tournament_id: int
    claim: str
    rules: dict[str, Any]
    seed: str
    settings: dict[str, Any]
    seats: list[SeatPlan]
    format: str = TournamentFormat.ROUND_ROBIN
    #: duplicate tournaments: the deal group (rated once, when all its rotations are over)
    deal_group: int | None = None
    #: the tournament asks for a new process per match for each uploaded bot
    fresh_processes: bool = False


# ------------------------------------------------------------------ statements built once
# The hot path (claim, record) runs Core statements compiled once, with bound parameters:
# building an ORM statement per call costs more than SQLite takes to run it.

_matches, _seats, _tournaments = Match.__table__, Seat.__table__, Tournament.__table__
_entries_table, _versions = Entry.__table__, BotVersion.__table__
_OPEN = (MatchStatus.PENDING, MatchStatus.QUEUED, MatchStatus.RUNNING)

_CLAIM = (
    _matches.update()
    .where(
        _matches.c.id.in_(bindparam("matches", expanding=True)),
        _matches.c.status == MatchStatus.QUEUED,
    )
    .values(
        status=MatchStatus.RUNNING,
        claim=bindparam("token"),
        worker=bindparam("worker"),
        attempts=_matches.c.attempts + 1,
        lease_until=bindparam("lease_until"),
        started_at=bindparam("started_at"),
    )
    .returning(_matches.c.id)
)
_PLAN = (
    select(
        _matches.c.id.label("match_id"),
        _matches.c.seed,
        _tournaments.c.id,
        _tournaments.c.rules,
        _tournaments.c.settings,
        _tournaments.c.format,
        _matches.c.deal_group,
        _tournaments.c.fresh_processes,
    )
    .join(_tournaments, _tournaments.c.id == _matches.c.tournament_id)
    .where(_matches.c.id.in_(bindparam("matches", expanding=True)))
)
_PLAN_SEATS = (
    select(
        _seats.c.match_id,
        _seats.c.bot_version_id,
        Bot.__table__.c.name,
        _versions.c.number,
        _versions.c.kind,
        _versions.c.target,
        _versions.c.active,
    )
    .join(_versions, _versions.c.id == _seats.c.bot_version_id)
    .join(Bot.__table__, Bot.__table__.c.id == _versions.c.bot_id)
    .where(_seats.c.match_id.in_(bindparam("matches", expanding=True)))
    .order_by(_seats.c.match_id, _seats.c.seat)
)
_RENEW = (
    _matches.update()
    .where(
        _matches.c.id.in_(bindparam("matches", expanding=True)),
        _matches.c.claim == bindparam("token"),
        _matches.c.status == MatchStatus.RUNNING,
    )
    .values(lease_until=bindparam("lease_until"))
)
_WAITING = select(_matches.c.id, _matches.c.job_id).where(
    _matches.c.status == MatchStatus.QUEUED, _matches.c.queued_at < bindparam("before")
)
_COMPLETED = select(_tournaments.c.completed).where(_tournaments.c.id == bindparam("tournament"))
_ENTRIES = select(
    _entries_table.c.bot_version_id, _entries_table.c.mu, _entries_table.c.sigma
).where(
    _entries_table.c.tournament_id == bindparam("tournament"),
    _entries_table.c.bot_version_id.in_(bindparam("versions", expanding=True)),
)
_SNAPSHOT = _ENTRIES.add_columns(_COMPLETED.scalar_subquery().label("completed"))
_RETIRED = select(_versions.c.id).where(
    _versions.c.id.in_(bindparam("versions", expanding=True)), _versions.c.active.is_(False)
)
_SEATS_RETIRED = (
    select(_seats.c.match_id)
    .join(_versions, _versions.c.id == _seats.c.bot_version_id)
    .where(_seats.c.match_id == _matches.c.id, _versions.c.active.is_(False))
)
#: the played matches still ours to record: running, under our claim (compared by the
#: caller), no seated bot replaced meanwhile; locked on PostgreSQL
_RECORDABLE = (
    select(_matches.c.id, _matches.c.claim)
    .where(
        _matches.c.id.in_(bindparam("matches", expanding=True)),
        _matches.c.status == MatchStatus.RUNNING,
        ~_SEATS_RETIRED.exists(),
    )
    .with_for_update(of=_matches)
)
_DONE = (
    _matches.update()
    .where(_matches.c.id == bindparam("match"))
    .values(
        status=MatchStatus.DONE,
        claim=None,
        lease_until=None,
        finished_at=bindparam("finished_at"),
        referee_ms=bindparam("referee_ms"),
        error=None,
        completion=bindparam("completion"),
        # a claimed match may wait for others of its job: keep when it really started
        started_at=func.coalesce(
            bindparam("started_at", type_=_matches.c.started_at.type), _matches.c.started_at
        ),
    )
)
_COUNT = (
    _tournaments.update()
    .where(_tournaments.c.id == bindparam("tournament"))
    .values(completed=_tournaments.c.completed + bindparam("recorded"))
    .returning(_tournaments.c.completed)
)
_SEAT_RESULTS = _seats.update().where(
    _seats.c.match_id == bindparam("match"), _seats.c.seat == bindparam("number")
)
_LOG = MatchLog.__table__.insert()
_ENTRY = (
    _entries_table.c.tournament_id == bindparam("tournament"),
    _entries_table.c.bot_version_id == bindparam("version"),
)
_ENTRY_RATING = (
    _entries_table.update()
    .where(*_ENTRY)
    .values(mu=bindparam("new_mu"), sigma=bindparam("new_sigma"))
)
_IN_GROUP = (
    _matches.c.tournament_id == bindparam("tournament"),
    _matches.c.deal_group == bindparam("group"),
)
_GROUP_OPEN = select(_matches.c.id).where(*_IN_GROUP, _matches.c.status.in_(_OPEN)).limit(1)
_GROUP_PLACES = (
    select(_seats.c.bot_version_id, func.sum(_seats.c.place))
    .join(_matches, _matches.c.id == _seats.c.match_id)
    .where(*_IN_GROUP, _matches.c.status == MatchStatus.DONE)
    .group_by(_seats.c.bot_version_id)
    .order_by(_seats.c.bot_version_id)
)
_RATING_CHANGE = RatingChange.__table__.insert()
_FINISH = (
    _tournaments.update()
    .where(
        _tournaments.c.id == bindparam("tournament"),
        _tournaments.c.format != TournamentFormat.LADDER,  # a ladder ends when it is stopped
        _tournaments.c.status == TournamentStatus.RUNNING,
        ~select(_matches.c.id)
        .where(_matches.c.tournament_id == bindparam("tournament"), _matches.c.status.in_(_OPEN))
        .exists(),
    )
    .values(status=TournamentStatus.DONE, finished_at=bindparam("finished_at"))
)


def claim(db: Database, match_id: int, worker: str, lease: timedelta = LEASE) -> MatchPlan | None:
    """Take a queued match; ``None`` if it is not queued (done, failed, or someone has it)."""
    plans = claim_all(db, [match_id], worker, lease)
    return plans[0] if plans else None


def claim_all(
    db: Database, match_ids: list[int], worker: str, lease: timedelta = LEASE
) -> list[MatchPlan]:
    """Take those of ``match_ids`` that are still queued, under one claim token, in order.

    One conditional UPDATE holds the write lock; the plans are read afterwards. A match
    whose bots changed since it was scheduled is marked stale instead of returned."""
    token = secrets.token_hex(16)
    moment = now()
    taken = set(
        db.transaction(
            lambda session: (
                session.connection()
                .execute(
                    _CLAIM,
                    {
                        "matches": match_ids,
                        "token": token,
                        "worker": worker,
                        "lease_until": moment + lease,
                        "started_at": moment,
                    },
                )
                .scalars()
                .all()
            )
        )
    )
    ordered = [m for m in match_ids if m in taken]
    if not ordered:
        return []
    with db.read_core() as connection:
        rows = {row.match_id: row for row in connection.execute(_PLAN, {"matches": ordered})}
        seat_rows: dict[int, list] = {}
        for row in connection.execute(_PLAN_SEATS, {"matches": ordered}):
            seat_rows.setdefault(row.match_id, []).append(row)
    plans = []
    for match_id in ordered:
        plan = _plan(db, rows[match_id], seat_rows[match_id], token)
        if plan is not None:
            plans.append(plan)
    return plans


def _plan(db: Database, row: Row, seat_rows: list[Row], token: str) -> MatchPlan | None:
    """The match's plan, or None after marking it stale (a seated bot was replaced)."""
    retired = [f"{r.name} v{r.number}" for r in seat_rows if not r.active]
    if retired:
        db.transaction(lambda session: _mark_stale(session, row.match_id, token, retired))
        return None
    seats = [
        SeatPlan(r.bot_version_id, f"{r.name} v{r.number}", BotKind(r.kind).value, r.target)
        for r in seat_rows
    ]
    return MatchPlan(
        row.match_id,
        row.id,
        token,
        row.rules,
        row.seed,
        row.settings,
        seats,
        row.format,
        row.deal_group,
        row.fresh_processes,
    )


def _mark_stale(session: Session, match_id: int, token: str, retired: list[str]) -> bool:
    """Discard a match whose bots changed since it was scheduled (it is not rated)."""
    changed = session.execute(
        update(Match)
        .where(Match.id == match_id, Match.claim == token, Match.status == MatchStatus.RUNNING)
        .values(
            status=MatchStatus.STALE,
            claim=None,
            lease_until=None,
            finished_at=now(),
            error=f"stale: replaced since scheduled: {', '.join(retired)}",
        )
    ).rowcount
    if changed:
        tournament_id, group = session.execute(
            select(Match.tournament_id, Match.deal_group).where(Match.id == match_id)
        ).one()
        _rate_group_if_closed(session.connection(), tournament_id, group, match_id)
        _finish_if_complete(session.connection(), tournament_id)
    return bool(changed)


def renew(db: Database, match_ids: list[int], token: str, lease: timedelta = LEASE) -> int:
    """Extend the leases of the claimed matches still running; how many were extended."""
    return db.transaction(
        lambda session: (
            session.connection()
            .execute(_RENEW, {"matches": match_ids, "token": token, "lease_until": now() + lease})
            .rowcount
        )
    )


@dataclass(frozen=True)
class PlayedMatch:
    """A match played under its claim, waiting to be recorded."""

    plan: MatchPlan
    log: dict[str, Any]
    referee_ms: float
    started_at: datetime | None = None
    #: by seat: what an uploaded bot printed during the match (Seat.output)
    outputs: dict[int, str] = field(default_factory=dict)


def record(
    db: Database,
    plan: MatchPlan,
    log: dict[str, Any],
    referee_ms: float,
    started_at: datetime | None = None,
) -> bool:
    """Store one played match once: see ``record_all``."""
    return record_all(db, [PlayedMatch(plan, log, referee_ms, started_at)])[0]


def record_all(db: Database, played: list[PlayedMatch]) -> list[bool]:
    """Store the results, logs and new ratings of played matches, each once, in one
    transaction; for each, whether it was recorded (False: its claim was lost, or a
    seated bot was replaced meanwhile and the match is now stale).

    A worker records a job's matches together: the write lock, the transaction and a
    tournament's bookkeeping are paid once, not per match. Everything is prepared
    before the lock is taken, ratings included (from a snapshot); the write applies them
    only if no other result was recorded since (the tournament's completion counter),
    and otherwise rates again under the lock. Either way in completion order, once.
    """
    results = [_Result(match) for match in played]
    by_tournament: dict[int, list[_Result]] = {}
    for result in results:
        by_tournament.setdefault(result.plan.tournament_id, []).append(result)
    batches = [_Batch(db, group) for group in by_tournament.values()]
    for _ in range(RATE_AGAIN):  # rate again outside the lock while another result landed
        stale = [batch for batch in batches if not batch.up_to_date(db)]
        if not stale:
            break
        for batch in stale:
            batch.prepare(db)
    recorded = db.transaction(
        lambda session: {
            match_id for batch in batches for match_id in batch.write(session.connection())
        }
    )
    for result in results:
        if result.plan.match_id not in recorded:
            _discard_if_replaced_or_log(db, result.plan)
    return [result.plan.match_id in recorded for result in results]


def _discard_if_replaced_or_log(db: Database, plan: MatchPlan) -> None:
    """Best effort: if this fails, the match's lease runs out, the reconciler queues it
    again, and the next claim finds the replaced bot and discards it then."""
    try:
        db.transaction(partial(_discard_if_replaced, plan=plan))
    except Exception:
        logger.exception("match %s: cannot check whether it went stale", plan.match_id)


def _discard_if_replaced(session: Session, plan: MatchPlan) -> bool:
    """A result that could not be recorded: if a seated bot was replaced while the match
    was played, the match is stale (discarded, not rated)."""
    versions = [seat.bot_version_id for seat in plan.seats]
    retired = set(session.connection().execute(_RETIRED, {"versions": versions}).scalars())
    names = [seat.name for seat in plan.seats if seat.bot_version_id in retired]
    return bool(names) and _mark_stale(session, plan.match_id, plan.claim, names)


def _entry_totals():  # noqa: ANN202 - a Core UPDATE with increments, built once
    entries = Entry.__table__
    increments = {
        name: entries.c[name] + bindparam(f"d_{name}")
        for name in ("strikes", "illegal", "decisions", *STYLE_FIELDS)
    }
    return (
        entries.update()
        .where(*_ENTRY)
        .values(
            games=entries.c.games + 1,
            place_sum=entries.c.place_sum + bindparam("d_place"),
            wins=entries.c.wins + bindparam("d_win"),
            forfeits=entries.c.forfeits + bindparam("d_forfeit"),
            **increments,
        )
    )


_ENTRY_TOTALS = _entry_totals()


class _Result:
    """A played match, ready to be written: its seats' rows and what they add to the
    running totals."""

    def __init__(self, played: PlayedMatch) -> None:
        self.plan, self.referee_ms, self.started_at = (
            played.plan,
            played.referee_ms,
            played.started_at,
        )
        outputs = played.outputs
        log = played.log
        self.blob = zlib.compress(json.dumps(log, separators=(",", ":")).encode(), 1)
        self.ranking = [tuple(group) for group in log["result"]["ranking"]]
        place_of = {seat: place for place, group in places(tuple(self.ranking)) for seat in group}
        styles = style_counts(log)
        self.versions = [seat.bot_version_id for seat in self.plan.seats]
        self.seats = []
        for index, entry in enumerate(log["seats"]):
            forfeit = entry["forfeit"]
            self.seats.append(
                {
                    "match": self.plan.match_id,
                    "number": index,
                    "place": place_of[index],
                    "forfeit": forfeit is not None,
                    "forfeit_kind": forfeit["kind"] if forfeit else None,
                    "forfeit_reason": forfeit["detail"] if forfeit else None,
                    "output": outputs.get(index),
                    "strikes": entry["strikes"],
                    "illegal": entry["illegal"],
                    "decisions": entry["decisions"],
                    "latency_mean_ms": entry["latency_ms"]["mean"],
                    "latency_p99_ms": entry["latency_ms"]["p99"],
                    **styles[index],
                }
            )

    def pairs(self) -> list[dict[str, int]]:
        """What the match adds to the head-to-head totals."""
        return pairs.rows(
            self.plan.tournament_id, self.versions, [row["place"] for row in self.seats]
        )

    def totals(self) -> list[dict[str, int]]:
        """What each seat adds to its entry's running totals."""
        return [
            {
                "tournament": self.plan.tournament_id,
                "version": version,
                "d_place": row["place"],
                "d_win": int(row["place"] == 1),
                "d_forfeit": int(row["forfeit"]),
                "d_strikes": row["strikes"],
                "d_illegal": row["illegal"],
                "d_decisions": row["decisions"],
                **{f"d_{name}": row[name] for name in STYLE_FIELDS},
            }
            for version, row in zip(self.versions, self.seats, strict=True)
        ]


Ratings = dict[int, ratings.Rating]  # by bot version


def _rate_in_turn(current: Ratings, results: list[_Result]) -> list[list[ratings.Rating]]:
    """Each result's new ratings (by seat), applied one result after another."""
    current, steps = dict(current), []
    for result in results:
        rated = ratings.rate([current[v] for v in result.versions], result.ranking)
        current.update(zip(result.versions, rated, strict=True))
        steps.append(rated)
    return steps


class _Batch:
    """One tournament's played matches, recorded together in completion order."""

    def __init__(self, db: Database, results: list[_Result]) -> None:
        self.results = results
        self.tournament_id = results[0].plan.tournament_id
        self.versions = sorted({v for result in results for v in result.versions})
        #: duplicate deals are rated by group, under the lock
        self.grouped = results[0].plan.deal_group is not None
        self.seen: int | None = None
        self.steps: list[list[ratings.Rating]] | None = None
        if not self.grouped:
            self.prepare(db)

    def prepare(self, db: Database) -> None:
        """Rate the results from a snapshot of the entries (outside the write lock)."""
        with db.read_core() as connection:
            rows = connection.execute(_SNAPSHOT, self._entries_of()).all()
        self.seen = rows[0].completed
        self.steps = _rate_in_turn(_ratings(rows), self.results)

    def up_to_date(self, db: Database) -> bool:
        """Whether no result was recorded since the snapshot (one row read)."""
        if self.grouped:
            return True
        with db.read_core() as connection:
            completed = connection.execute(_COMPLETED, {"tournament": self.tournament_id})
            return completed.scalar() == self.seen

    def _entries_of(self) -> dict[str, Any]:
        return {"tournament": self.tournament_id, "versions": self.versions}

    def write(self, connection: Connection) -> list[int]:
        """Record the results still ours; their match ids."""
        ids = [result.plan.match_id for result in self.results]
        claims = dict(connection.execute(_RECORDABLE, {"matches": ids}).all())
        mine = [r for r in self.results if claims.get(r.plan.match_id) == r.plan.claim]
        if not mine:
            return []
        # on PostgreSQL this locks the tournament row: concurrent results take their
        # completion numbers, and apply their ratings, one batch at a time
        last = connection.execute(
            _COUNT, {"tournament": self.tournament_id, "recorded": len(mine)}
        ).scalar()
        first = last - len(mine) + 1
        moment = now()
        connection.execute(
            _DONE,
            [
                {
                    "match": result.plan.match_id,
                    "finished_at": moment,
                    "referee_ms": result.referee_ms,
                    "completion": first + index,
                    "started_at": result.started_at,
                }
                for index, result in enumerate(mine)
            ],
        )
        connection.execute(_SEAT_RESULTS, [row for result in mine for row in result.seats])
        connection.execute(
            _LOG,
            [{"match_id": r.plan.match_id, "data": r.blob, "size": len(r.blob)} for r in mine],
        )
        connection.execute(_ENTRY_TOTALS, [row for result in mine for row in result.totals()])
        pairs.add(connection, [row for result in mine for row in result.pairs()])
        if self.grouped:
            self._rate_closed_groups(connection, mine, first)
        else:
            self._rate(connection, mine, first)
        _finish_if_complete(connection, self.tournament_id)
        return [result.plan.match_id for result in mine]

    def _rate(self, connection: Connection, mine: list[_Result], first: int) -> None:
        steps = self.steps
        if steps is None or self.seen != first - 1 or len(mine) < len(self.results):
            # another result was recorded since the snapshot (or one of ours was lost)
            current = _ratings(connection.execute(_ENTRIES, self._entries_of()))
            steps = _rate_in_turn(current, mine)
        final: Ratings = {}
        for result, rated in zip(mine, steps, strict=True):
            final.update(zip(result.versions, rated, strict=True))
        connection.execute(
            _ENTRY_RATING,
            [
                {
                    "tournament": self.tournament_id,
                    "version": v,
                    "new_mu": r.mu,
                    "new_sigma": r.sigma,
                }
                for v, r in final.items()
            ],
        )
        connection.execute(
            _RATING_CHANGE,
            [
                {
                    "tournament_id": self.tournament_id,
                    "bot_version_id": version,
                    "match_id": result.plan.match_id,
                    "completion": first + index,
                    "mu": r.mu,
                    "sigma": r.sigma,
                }
                for index, (result, rated) in enumerate(zip(mine, steps, strict=True))
                for version, r in zip(result.versions, rated, strict=True)
            ],
        )

    def _rate_closed_groups(self, connection: Connection, mine: list[_Result], first: int) -> None:
        """Rate each deal group these results closed, once, in the order they closed it."""
        closing: dict[int, tuple[int, int]] = {}  # group: its last match here, completion
        for index, result in enumerate(mine):
            group = result.plan.deal_group
            assert group is not None
            closing.pop(group, None)  # re-inserted: the dict keeps the closing order
            closing[group] = (result.plan.match_id, first + index)
        for group, (match_id, completion) in closing.items():
            _rate_group_if_closed(connection, self.tournament_id, group, match_id, completion)


def _ratings(rows: Any) -> Ratings:  # noqa: ANN401 - rows of _ENTRIES
    return {row.bot_version_id: ratings.Rating(row.mu, row.sigma) for row in rows}


def _rate_group_if_closed(
    connection: Connection,
    tournament_id: int,
    group: int | None,
    match_id: int,
    completion: int | None = None,
) -> None:
    """Duplicate deals: once no match of ``group`` is open, rate the group once, ranking its
    bots by their places summed over the rotations played (a deal's luck cancels out).

    Rating every rotation as its own match would count one deal's outcomes as independent
    evidence; ``arena bench ranking`` measures that as slower than random seating."""
    if group is None or connection.execute(_GROUP_OPEN, _group(tournament_id, group)).first():
        return
    summed = connection.execute(_GROUP_PLACES, _group(tournament_id, group)).all()
    if not summed:  # every rotation failed or went stale
        return
    if completion is None:
        completion = connection.execute(_COMPLETED, {"tournament": tournament_id}).scalar()
    versions = [version for version, _ in summed]
    entries = {"tournament": tournament_id, "versions": versions}
    by_version = _ratings(connection.execute(_ENTRIES, entries))
    current = [by_version[v] for v in versions]
    rated = ratings.rate(current, ratings.ranking_by_score([place for _, place in summed]))
    connection.execute(
        _ENTRY_RATING,
        [
            {"tournament": tournament_id, "version": v, "new_mu": r.mu, "new_sigma": r.sigma}
            for v, r in zip(versions, rated, strict=True)
        ],
    )
    connection.execute(
        _RATING_CHANGE,
        [
            {
                "tournament_id": tournament_id,
                "bot_version_id": v,
                "match_id": match_id,
                "completion": completion,
                "mu": r.mu,
                "sigma": r.sigma,
            }
            for v, r in zip(versions, rated, strict=True)
        ],
    )


def _group(tournament_id: int, group: int) -> dict[str, int]:
    return {"tournament": tournament_id, "group": group}


def _finish_if_complete(connection: Connection, tournament_id: int) -> None:
    """Mark a running tournament done once none of its matches is still open."""
    connection.execute(_FINISH, {"tournament": tournament_id, "finished_at": now()})


def give_back(db: Database, plan: MatchPlan, error: str) -> tuple[MatchStatus, str | None]:
    """After an infrastructure failure: queue the match again (a new job id), or fail it
    when its attempts are spent. Returns the new status and the job id to enqueue."""

    def work(session: Session) -> tuple[MatchStatus, str | None]:
        match = session.scalar(select(Match).where(Match.id == plan.match_id).with_for_update())
        if match.status is not MatchStatus.RUNNING or match.claim != plan.claim:
            return match.status, None
        return _retry_or_fail(session, match, error)

    return db.transaction(work)


def _retry_or_fail(session: Session, match: Match, error: str) -> tuple[MatchStatus, str | None]:
    match.claim, match.lease_until, match.worker = None, None, None
    match.error = error
    if match.attempts >= MAX_ATTEMPTS:
        match.status = MatchStatus.FAILED
        match.finished_at = now()
        session.flush()
        _rate_group_if_closed(session.connection(), match.tournament_id, match.deal_group, match.id)
        _finish_if_complete(session.connection(), match.tournament_id)
        return MatchStatus.FAILED, None
    match.status = MatchStatus.QUEUED
    match.job_id = new_job_id(match.id)
    match.queued_at = now()
    return MatchStatus.QUEUED, match.job_id


@dataclass
class Repairs:
    requeued: list[tuple[int, str]]
    failed: list[int]
    resent: list[tuple[int, str]]


def reconcile(
    db: Database,
    job_pending: Callable[[str], bool],
    lost_after: timedelta = timedelta(seconds=10),
    workers: int = 1,
) -> Repairs:
    """Repair what a lost worker or a lost queue left behind (the database is the truth):

    - a running match whose lease expired (its worker died): queued again, or failed
      once its attempts are spent;
    - a queued match whose job will not play it (gone from Redis, ended, or abandoned:
      ``job_pending`` says): sent again.
    Redis is asked before the write lock is taken (once per job: a job carries several
    matches); the write re-sends only matches still queued under the job it asked about.
    What goes out again travels in jobs of the usual sizes for ``workers`` workers (after
    Redis lost everything, thousands of single-match jobs would slow the rest of the
    run). Returns what to enqueue; enqueue it after this commits.
    """
    with db.read_core() as connection:
        waiting = connection.execute(_WAITING, {"before": now() - lost_after}).all()
    pending = cache(job_pending)
    lost = {match_id: job for match_id, job in waiting if job is None or not pending(job)}

    def work(session: Session) -> Repairs:
        failed, expired, resent = [], [], []
        moment = now()
        for match in session.scalars(
            select(Match)
            .where(Match.status == MatchStatus.RUNNING, Match.lease_until < moment)
            .with_for_update(skip_locked=True)
        ):
            status, _ = _retry_or_fail(
                session, match, f"the worker playing it was lost (attempt {match.attempts})"
            )
            (expired if status is MatchStatus.QUEUED else failed).append(match)
        for match in session.scalars(
            select(Match)
            .where(Match.id.in_(list(lost)), Match.status == MatchStatus.QUEUED)
            .with_for_update(skip_locked=True)
        ):
            if match.job_id == lost[match.id]:  # else re-sent meanwhile
                resent.append(match)
        return Repairs(
            requeued=_in_jobs(expired, workers, moment),
            failed=[match.id for match in failed],
            resent=_in_jobs(resent, workers, moment),
        )

    return db.transaction(work)


def _in_jobs(queued: list[Match], workers: int, moment: datetime) -> list[tuple[int, str]]:
    """Give queued matches new job ids, a job per batch of the usual size (a tournament's
    matches in their order); the ``(match id, job id)`` pairs to enqueue."""
    by_tournament: dict[int, list[Match]] = {}
    for match in sorted(queued, key=lambda m: (m.tournament_id, m.index)):
        by_tournament.setdefault(match.tournament_id, []).append(match)
    jobs = []
    for matches in by_tournament.values():
        rest = iter(matches)
        for size in job_sizes(len(matches), workers):
            batch = [next(rest) for _ in range(size)]
            job_id = new_job_id(batch[0].id)
            for match in batch:
                match.job_id, match.queued_at = job_id, moment
                jobs.append((match.id, job_id))
    return jobs
