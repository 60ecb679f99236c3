"""Claims and leases: a worker claims a queued match (a random token and a lease it
renews while it plays), gives it back when the platform failed, and the reconciler
queues again what a dead worker left. A worker may record a match only while it holds
the match's current claim (arena.store.results)."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from typing import Any

from sqlalchemy import Connection, Row, bindparam, case, func, select, update
from sqlalchemy.orm import Session

from arena.base.jobs import job_sizes, renewed
from arena.base.states import OPEN_STATUSES, BotKind, MatchStatus, TournamentStatus
from arena.base.timing import LEASE
from arena.base.words import said
from arena.store.bots import DEFAULT_ENDPOINT_MATCHES
from arena.store.db import Database, rows_changed
from arena.store.models import (
    BotVersion,
    Entry,
    MatchSeat,
    RegisteredBot,
    Tournament,
    TournamentMatch,
    now,
    table_of,
)
from arena.store.rating_policy import rate_group_if_closed
from arena.tournament import formats

#: a result row of any columns
AnyRow = Row[*tuple[Any, ...]]

logger = logging.getLogger(__name__)

# The hot path (claim, record) runs Core statements compiled once, with bound parameters:
# building an ORM statement per call costs more than SQLite takes to run it.
_matches, _seats, _tournaments = (
    table_of(TournamentMatch),
    table_of(MatchSeat),
    table_of(Tournament),
)
_entries_table, _versions = table_of(Entry), table_of(BotVersion)

#: attempts before a match is failed: the first run and 3 retries (an operator may give
#: more: ``ARENA_MATCH_ATTEMPTS``)
MAX_ATTEMPTS = 4


@dataclass(frozen=True)
class SeatPlan:
    bot_version_id: int
    name: str
    kind: BotKind
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
    format: str = formats.DEFAULT.name
    #: duplicate tournaments: the deal group (rated once, when all its rotations are over)
    deal_group: int | None = None
    #: the tournament asks for a new process per match for each uploaded bot
    fresh_processes: bool = False


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


#: an endpoint's limit of matches at once: its owner's, else the one its Hello
#: announced, else the default; other bots have none (NULL)
_LIMIT = func.coalesce(
    _versions.c.max_matches,
    _versions.c.announced_matches,
    case((_versions.c.kind == BotKind.ENDPOINT, DEFAULT_ENDPOINT_MATCHES)),
)
#: the queued matches' seats whose bot has a limit of matches at once
_LIMITED = (
    select(_seats.c.match_id, _seats.c.bot_version_id, _LIMIT.label("max_matches"))
    .join(_versions, _versions.c.id == _seats.c.bot_version_id)
    .join(_matches, _matches.c.id == _seats.c.match_id)
    .where(
        _seats.c.match_id.in_(bindparam("matches", expanding=True)),
        _matches.c.status == MatchStatus.QUEUED,
        _LIMIT.is_not(None),
    )
)
#: those versions' rows, locked: claims seating them are made one at a time (PostgreSQL;
#: on SQLite every write already is)
_LOCK_LIMITED = (
    select(_versions.c.id)
    .where(_versions.c.id.in_(bindparam("versions", expanding=True)))
    .with_for_update()
)
#: how many matches each of those versions plays now, over every worker
_PLAYING = (
    select(_seats.c.bot_version_id, func.count())
    .join(_matches, _matches.c.id == _seats.c.match_id)
    .where(
        _seats.c.bot_version_id.in_(bindparam("versions", expanding=True)),
        _matches.c.status == MatchStatus.RUNNING,
    )
    .group_by(_seats.c.bot_version_id)
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
        table_of(RegisteredBot).c.name,
        _versions.c.number,
        _versions.c.kind,
        _versions.c.target,
        _entries_table.c.retired,
    )
    .select_from(_seats)
    .join(_matches, _matches.c.id == _seats.c.match_id)
    .join(_versions, _versions.c.id == _seats.c.bot_version_id)
    .join(table_of(RegisteredBot), table_of(RegisteredBot).c.id == _versions.c.bot_id)
    .outerjoin(
        _entries_table,
        (_entries_table.c.tournament_id == _matches.c.tournament_id)
        & (_entries_table.c.bot_version_id == _seats.c.bot_version_id),
    )
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
    .returning(_matches.c.id)
)


_WAITING = select(_matches.c.id, _matches.c.job_id).where(
    _matches.c.status == MatchStatus.QUEUED, _matches.c.queued_at < bindparam("before")
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

    def take(session: Session) -> list[int]:
        connection = session.connection()
        allowed = _one_rotation_at_a_time(connection, match_ids)
        allowed = _owners_in_turn(connection, allowed)
        allowed = _within_limits(connection, allowed)
        if not allowed:
            return []
        values = {"token": token, "worker": worker, "lease_until": moment + lease}
        claimed = connection.execute(_CLAIM, {"matches": allowed, "started_at": moment, **values})
        return list(claimed.scalars())

    taken = set(db.transaction(take))
    ordered = [m for m in match_ids if m in taken]
    if not ordered:
        return []
    with db.read_core() as connection:
        rows = {row.match_id: row for row in connection.execute(_PLAN, {"matches": ordered})}
        seat_rows: dict[int, list[AnyRow]] = {}
        for row in connection.execute(_PLAN_SEATS, {"matches": ordered}):
            seat_rows.setdefault(row.match_id, []).append(row)
    plans = []
    for match_id in ordered:
        plan = _plan(db, rows[match_id], seat_rows[match_id], token)
        if plan is not None:
            plans.append(plan)
    return plans


def with_outside_bots(db: Database, match_ids: list[int]) -> set[int]:
    """Those of ``match_ids`` that seat a bot other than the platform's samples (played
    out of the worker's process: each takes one of its slots)."""
    with db.read_core() as connection:
        return set(
            connection.execute(
                select(_seats.c.match_id)
                .join(_versions, _versions.c.id == _seats.c.bot_version_id)
                .where(_seats.c.match_id.in_(match_ids), _versions.c.kind != BotKind.SAMPLE)
                .distinct()
            ).scalars()
        )


def pass_on(db: Database, match_ids: list[int]) -> list[tuple[int, str]]:
    """Give those of ``match_ids`` still queued one new job (a worker without room for
    them sends them back to the queue); the ``(match id, job id)`` pairs to enqueue."""
    if not match_ids:
        return []

    def give(session: Session) -> tuple[str, set[int]]:
        connection = session.connection()
        # the lane is its queued matches' (a recorded match keeps no job id)
        old = connection.execute(
            select(_matches.c.job_id)
            .where(_matches.c.id.in_(match_ids), _matches.c.status == MatchStatus.QUEUED)
            .order_by(_matches.c.id)
            .limit(1)
        ).scalar()
        job_id = renewed(match_ids[0], old)
        passed = connection.execute(
            _matches.update()
            .where(_matches.c.id.in_(match_ids), _matches.c.status == MatchStatus.QUEUED)
            .values(job_id=job_id)
            .returning(_matches.c.id)
        ).scalars()
        return job_id, set(passed)

    job_id, passed = db.transaction(give)
    return [(match_id, job_id) for match_id in match_ids if match_id in passed]


def still_queued(db: Database, match_ids: list[int]) -> list[int]:
    """Those of ``match_ids`` still queued (a claim left them for its bots' limits), in order."""
    if not match_ids:
        return []
    with db.read_core() as connection:
        queued = set(
            connection.execute(
                select(_matches.c.id).where(
                    _matches.c.id.in_(match_ids), _matches.c.status == MatchStatus.QUEUED
                )
            ).scalars()
        )
    return [m for m in match_ids if m in queued]


#: the queued matches of ``matches`` that are rotations of a duplicate deal seating a bot
#: run outside the worker (a sandbox or an endpoint)
_ROTATIONS = select(_matches.c.id, _matches.c.tournament_id, _matches.c.deal_group).where(
    _matches.c.id.in_(bindparam("matches", expanding=True)),
    _matches.c.status == MatchStatus.QUEUED,
    _matches.c.deal_group.is_not(None),
    select(_seats.c.match_id)
    .join(_versions, _versions.c.id == _seats.c.bot_version_id)
    .where(_seats.c.match_id == _matches.c.id, _versions.c.kind != BotKind.SAMPLE)
    .exists(),
)
#: their tournaments' rows, locked: such claims are made one at a time (PostgreSQL)
_LOCK_TOURNAMENTS = (
    select(_tournaments.c.id)
    .where(_tournaments.c.id.in_(bindparam("tournaments", expanding=True)))
    .order_by(_tournaments.c.id)
    .with_for_update()
)
#: the deal groups of those tournaments with a rotation in play now, on any worker
_GROUPS_IN_PLAY = (
    select(_matches.c.tournament_id, _matches.c.deal_group)
    .where(
        _matches.c.tournament_id.in_(bindparam("tournaments", expanding=True)),
        _matches.c.deal_group.in_(bindparam("groups", expanding=True)),
        _matches.c.status == MatchStatus.RUNNING,
    )
    .distinct()
)


def _one_rotation_at_a_time(connection: Connection, match_ids: list[int]) -> list[int]:
    """Those of ``match_ids`` that may start now, in order: a rotation of a duplicate
    deal with a bot outside the worker waits while another rotation of that deal plays
    (on any worker). Two bots alive at once share the machine's timing and a few
    host-wide numbers (docs/sandbox.md); one deal's rotations are never alive at once,
    so nothing carries a hand from one rotation to another. The others stay queued
    for a later claim, as for a bot's limit."""
    rotations = connection.execute(_ROTATIONS, {"matches": match_ids}).all()
    if not rotations:
        return match_ids
    tournaments = sorted({row.tournament_id for row in rotations})
    groups = sorted({row.deal_group for row in rotations})
    connection.execute(_LOCK_TOURNAMENTS, {"tournaments": tournaments}).all()
    in_play = connection.execute(_GROUPS_IN_PLAY, {"tournaments": tournaments, "groups": groups})
    busy = {(tournament, group) for tournament, group in in_play}
    group_of = {row.id: (row.tournament_id, row.deal_group) for row in rotations}
    allowed = []
    for match_id in match_ids:
        group = group_of.get(match_id)
        if group is not None:
            if group in busy:
                continue
            busy.add(group)
        allowed.append(match_id)
    return allowed


#: an owner's own tournament (an A/B test is ranked work, not private; a format registered
#: later is private work when an owner makes it)
_PRIVATE = _tournaments.c.owner_id.is_not(None) & _tournaments.c.format.not_in(
    formats.having(lambda format: format.ranked_work)
)
_PRIVATE_MATCHES = _matches.join(_tournaments, _tournaments.c.id == _matches.c.tournament_id)
#: the private matches among ``matches`` still queued, with their owners
_PRIVATE_QUEUED = (
    select(_matches.c.id, _tournaments.c.owner_id)
    .select_from(_PRIVATE_MATCHES)
    .where(
        _matches.c.id.in_(bindparam("matches", expanding=True)),
        _matches.c.status == MatchStatus.QUEUED,
        _PRIVATE,
    )
)
#: by owner: private matches in play now, over every worker
_PRIVATE_PLAYING = (
    select(_tournaments.c.owner_id, func.count())
    .select_from(_PRIVATE_MATCHES)
    .where(_matches.c.status == MatchStatus.RUNNING, _PRIVATE)
    .group_by(_tournaments.c.owner_id)
)
#: the owners with private matches waiting
_PRIVATE_WAITING = (
    select(_tournaments.c.owner_id)
    .select_from(_PRIVATE_MATCHES)
    .where(_matches.c.status == MatchStatus.QUEUED, _PRIVATE)
    .distinct()
)


def _owners_in_turn(connection: Connection, match_ids: list[int]) -> list[int]:
    """Those of ``match_ids`` that may start now, in order: an owner's private match
    starts only while no other owner with private matches waiting has fewer in play
    (one owner's three long tournaments share the private lane with another owner's
    one, turn about). The others stay queued for a later claim, as for a bot's limit."""
    queued = connection.execute(_PRIVATE_QUEUED, {"matches": match_ids})
    private = {match_id: owner for match_id, owner in queued}
    if not private:
        return match_ids
    playing = {owner: count for owner, count in connection.execute(_PRIVATE_PLAYING)}
    waiting = set(connection.execute(_PRIVATE_WAITING).scalars())
    allowed = []
    for match_id in match_ids:
        owner = private.get(match_id)
        if owner is not None:
            mine = playing.get(owner, 0)
            if any(playing.get(other, 0) < mine for other in waiting - {owner}):
                continue
            playing[owner] = mine + 1
        allowed.append(match_id)
    return allowed


def _within_limits(connection: Connection, match_ids: list[int]) -> list[int]:
    """Those of ``match_ids`` whose bots all have room for one more match (an endpoint's
    own ``max_matches``, counted over every worker), in order; the others stay queued
    for a later claim (the reconciler sends them again)."""
    limited = connection.execute(_LIMITED, {"matches": match_ids}).all()
    if not limited:
        return match_ids
    limit = {row.bot_version_id: row.max_matches for row in limited}
    versions = sorted(limit)
    connection.execute(_LOCK_LIMITED, {"versions": versions}).all()
    playing: dict[int, int] = dict(connection.execute(_PLAYING, {"versions": versions}).all())
    needs: dict[int, list[int]] = {}
    for row in limited:
        needs.setdefault(row.match_id, []).append(row.bot_version_id)
    allowed = []
    for match_id in match_ids:
        seated = needs.get(match_id, [])
        if all(playing.get(v, 0) < limit[v] for v in seated):
            for version in seated:
                playing[version] = playing.get(version, 0) + 1
            allowed.append(match_id)
    return allowed


def _plan(db: Database, row: AnyRow, seat_rows: list[AnyRow], token: str) -> MatchPlan | None:
    """The match's plan, or None after marking it stale (a seated version's entry was
    retired: a competition's ladder table of a version replaced since it was seated)."""
    retired = [f"{r.name} v{r.number}" for r in seat_rows if r.retired]
    if retired:
        db.transaction(lambda session: mark_stale(session, row.match_id, token, retired))
        return None
    seats = [
        SeatPlan(r.bot_version_id, f"{r.name} v{r.number}", BotKind(r.kind), r.target)
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


def mark_stale(session: Session, match_id: int, token: str, retired: list[str]) -> bool:
    """Discard a match whose bots changed since it was scheduled (it is not rated)."""
    changed = rows_changed(
        session.execute(
            update(TournamentMatch)
            .where(
                TournamentMatch.id == match_id,
                TournamentMatch.claim == token,
                TournamentMatch.status == MatchStatus.RUNNING,
            )
            .values(
                status=MatchStatus.STALE,
                claim=None,
                lease_until=None,
                finished_at=now(),
                error=said("match.stale", versions=", ".join(retired)),
            )
        )
    )
    if changed:
        tournament_id, group = session.execute(
            select(TournamentMatch.tournament_id, TournamentMatch.deal_group).where(
                TournamentMatch.id == match_id
            )
        ).one()
        rate_group_if_closed(session.connection(), tournament_id, group, match_id)
        finish_if_complete(session.connection(), tournament_id)
    return bool(changed)


def renew(db: Database, match_ids: list[int], token: str, lease: timedelta = LEASE) -> set[int]:
    """Extend the leases of the claimed matches still running; the ids extended."""
    return db.transaction(
        lambda session: set(
            session.connection()
            .execute(_RENEW, {"matches": match_ids, "token": token, "lease_until": now() + lease})
            .scalars()
        )
    )


def give_back(
    db: Database, plan: MatchPlan, error: str, attempts: int = MAX_ATTEMPTS
) -> tuple[MatchStatus, str | None]:
    """After an infrastructure failure: queue the match again (a new job id), or fail it
    when its ``attempts`` are spent. Returns the new status and the job id to enqueue."""

    def work(session: Session) -> tuple[MatchStatus, str | None]:
        match = session.scalars(
            select(TournamentMatch).where(TournamentMatch.id == plan.match_id).with_for_update()
        ).one()
        if match.status is not MatchStatus.RUNNING or match.claim != plan.claim:
            return match.status, None
        return _retry_or_fail(session, match, error, attempts)

    return db.transaction(work)


def _retry_or_fail(
    session: Session, match: TournamentMatch, error: str, attempts: int
) -> tuple[MatchStatus, str | None]:
    match.claim, match.lease_until, match.worker = None, None, None
    match.error = error
    if match.attempts >= attempts:
        match.status = MatchStatus.FAILED
        match.finished_at = now()
        session.flush()
        rate_group_if_closed(session.connection(), match.tournament_id, match.deal_group, match.id)
        finish_if_complete(session.connection(), match.tournament_id)
        return MatchStatus.FAILED, None
    match.status = MatchStatus.QUEUED
    match.job_id = renewed(match.id, match.job_id)
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
    attempts: int = MAX_ATTEMPTS,
) -> Repairs:
    """Repair what a lost worker or a lost queue left behind (the database is the truth):

    - a running match whose lease expired (its worker died): queued again, or failed
      once its ``attempts`` are spent;
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
        failed: list[TournamentMatch] = []
        expired: list[TournamentMatch] = []
        resent: list[TournamentMatch] = []
        moment = now()
        for match in session.scalars(
            select(TournamentMatch)
            .where(
                TournamentMatch.status == MatchStatus.RUNNING, TournamentMatch.lease_until < moment
            )
            .with_for_update(skip_locked=True)
        ):
            status, _ = _retry_or_fail(
                session,
                match,
                said("match.worker_lost", attempt=match.attempts),
                attempts,
            )
            (expired if status is MatchStatus.QUEUED else failed).append(match)
        for match in session.scalars(
            select(TournamentMatch)
            .where(TournamentMatch.id.in_(list(lost)), TournamentMatch.status == MatchStatus.QUEUED)
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


def _in_jobs(
    queued: list[TournamentMatch], workers: int, moment: datetime
) -> list[tuple[int, str]]:
    """Give queued matches new job ids, a job per batch of the usual size; the ``(match
    id, job id)`` pairs to enqueue, in the order to play them: per tournament, the
    matches a lost worker had claimed first (after Redis lost every job the whole queue
    goes out again, and they must not wait behind it), then in their order."""
    by_tournament: dict[int, list[TournamentMatch]] = {}
    for match in sorted(queued, key=lambda m: (m.tournament_id, m.attempts == 0, m.index)):
        by_tournament.setdefault(match.tournament_id, []).append(match)
    jobs = []
    for matches in by_tournament.values():
        rest = iter(matches)
        for size in job_sizes(len(matches), workers):
            batch = [next(rest) for _ in range(size)]
            job_id = renewed(batch[0].id, batch[0].job_id)
            for match in batch:
                match.job_id, match.queued_at = job_id, moment
                jobs.append((match.id, job_id))
    return jobs


_FINISHES = select(_tournaments.c.format).where(
    _tournaments.c.id == bindparam("tournament"),
    _tournaments.c.status == TournamentStatus.RUNNING,
)
_FINISH = (
    _tournaments.update()
    .where(
        _tournaments.c.id == bindparam("tournament"),
        _tournaments.c.status == TournamentStatus.RUNNING,
        ~select(_matches.c.id)
        .where(
            _matches.c.tournament_id == bindparam("tournament"),
            _matches.c.status.in_(OPEN_STATUSES),
        )
        .exists(),
    )
    .values(status=TournamentStatus.DONE, finished_at=bindparam("finished_at"))
)


def finish_if_complete(connection: Connection, tournament_id: int) -> None:
    """Mark a running tournament done once none of its matches is still open. A format
    that seats its matches as it plays is never asked (a ladder ends when it is stopped,
    an A/B test when it decides): the question's plan reads the tournament's matches, 14
    ms a recorded batch beside a season of 100,000 (``arena bench season``)."""
    format = connection.execute(_FINISHES, {"tournament": tournament_id}).scalar()
    if format is None or format in formats.self_scheduling():
        return
    connection.execute(_FINISH, {"tournament": tournament_id, "finished_at": now()})
