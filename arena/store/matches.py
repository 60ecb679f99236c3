"""Matches as the workers see them: claim, keep the lease, record once, or give back.

Exactly once: a worker may record a match only while it holds the match's current
claim (a random token set when it claimed the match). A job that runs twice, or a
worker that was presumed dead and comes back, finds its claim gone and its result is
discarded. Results, the log, the ratings and the completion number are written in
one transaction that first locks the tournament row, so concurrent workers apply
ratings one at a time, in completion order.
"""

from __future__ import annotations

import json
import secrets
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from arena import ratings
from arena.engine.match import places
from arena.store.db import Database
from arena.store.models import (
    Entry,
    Match,
    MatchLog,
    MatchStatus,
    RatingChange,
    Tournament,
    TournamentStatus,
    now,
)
from arena.store.tournaments import new_job_id

#: attempts before a match is failed: the first run and 3 retries
MAX_ATTEMPTS = 4
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


def claim(db: Database, match_id: int, worker: str, lease: timedelta = LEASE) -> MatchPlan | None:
    """Take a queued match; ``None`` if it is not queued (done, failed, or someone has it)."""
    token = secrets.token_hex(16)

    def work(session: Session) -> MatchPlan | None:
        taken = session.execute(
            update(Match)
            .where(Match.id == match_id, Match.status == MatchStatus.QUEUED)
            .values(
                status=MatchStatus.RUNNING,
                claim=token,
                worker=worker,
                attempts=Match.attempts + 1,
                lease_until=now() + lease,
                started_at=now(),
            )
        ).rowcount
        if not taken:
            return None
        match = session.get(Match, match_id)
        tournament = session.get(Tournament, match.tournament_id)
        seats = [
            SeatPlan(s.bot_version_id, s.version.label, s.version.kind.value, s.version.target)
            for s in match.seats
        ]
        return MatchPlan(
            match.id, tournament.id, token, tournament.rules, match.seed, tournament.settings, seats
        )

    return db.transaction(work)


def renew(db: Database, match_id: int, token: str, lease: timedelta = LEASE) -> bool:
    """Extend the lease; False when the claim was lost."""
    return bool(
        db.transaction(
            lambda session: (
                session.execute(
                    update(Match)
                    .where(
                        Match.id == match_id,
                        Match.claim == token,
                        Match.status == MatchStatus.RUNNING,
                    )
                    .values(lease_until=now() + lease)
                ).rowcount
            )
        )
    )


def record(db: Database, plan: MatchPlan, log: dict[str, Any], referee_ms: float) -> bool:
    """Store the result, the log and the new ratings, once. False: the claim was lost."""
    blob = zlib.compress(json.dumps(log, separators=(",", ":")).encode(), 6)

    def work(session: Session) -> bool:
        tournament = session.scalar(
            select(Tournament).where(Tournament.id == plan.tournament_id).with_for_update()
        )
        match = session.scalar(select(Match).where(Match.id == plan.match_id).with_for_update())
        if match.status is not MatchStatus.RUNNING or match.claim != plan.claim:
            return False
        tournament.completed += 1
        match.status, match.claim, match.lease_until = MatchStatus.DONE, None, None
        match.finished_at = now()
        match.completion = tournament.completed
        match.referee_ms = referee_ms
        match.error = None
        _store_seats(match, log)
        session.add(MatchLog(match_id=match.id, data=blob, size=len(blob)))
        _rate(session, tournament, match, log)
        session.flush()
        _finish_if_complete(session, tournament)
        return True

    return db.transaction(work)


def _store_seats(match: Match, log: dict[str, Any]) -> None:
    place_of = {
        seat: place
        for place, group in places(tuple(map(tuple, log["result"]["ranking"])))
        for seat in group
    }
    for seat in match.seats:
        entry = log["seats"][seat.seat]
        forfeit = entry["forfeit"]
        seat.place = place_of[seat.seat]
        seat.forfeit = forfeit is not None
        seat.forfeit_kind = forfeit["kind"] if forfeit else None
        seat.forfeit_reason = forfeit["detail"] if forfeit else None
        seat.strikes = entry["strikes"]
        seat.illegal = entry["illegal"]
        seat.decisions = entry["decisions"]
        seat.latency_mean_ms = entry["latency_ms"]["mean"]
        seat.latency_p99_ms = entry["latency_ms"]["p99"]


def _rate(session: Session, tournament: Tournament, match: Match, log: dict[str, Any]) -> None:
    """Apply this match to the ratings (the caller holds the tournament's lock)."""
    versions = [seat.bot_version_id for seat in match.seats]
    entries = {
        e.bot_version_id: e
        for e in session.scalars(
            select(Entry).where(
                Entry.tournament_id == tournament.id, Entry.bot_version_id.in_(versions)
            )
        )
    }
    current = [ratings.Rating(entries[v].mu, entries[v].sigma) for v in versions]
    ranking = [tuple(group) for group in log["result"]["ranking"]]
    for version, rating in zip(versions, ratings.rate(current, ranking), strict=True):
        entry = entries[version]
        entry.mu, entry.sigma, entry.games = rating.mu, rating.sigma, entry.games + 1
        session.add(
            RatingChange(
                tournament_id=tournament.id,
                bot_version_id=version,
                match_id=match.id,
                completion=match.completion,
                mu=rating.mu,
                sigma=rating.sigma,
            )
        )


def _finish_if_complete(session: Session, tournament: Tournament) -> None:
    open_matches = session.scalar(
        select(Match.id)
        .where(
            Match.tournament_id == tournament.id,
            Match.status.in_([MatchStatus.PENDING, MatchStatus.QUEUED, MatchStatus.RUNNING]),
        )
        .limit(1)
    )
    if open_matches is None and tournament.status is TournamentStatus.RUNNING:
        tournament.status = TournamentStatus.DONE
        tournament.finished_at = now()


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
        tournament = session.get(Tournament, match.tournament_id)
        session.flush()
        _finish_if_complete(session, tournament)
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
    db: Database, job_exists: Callable[[str], bool], lost_after: timedelta = timedelta(seconds=10)
) -> Repairs:
    """Repair what a lost worker or a lost queue left behind (the database is the truth):

    - a running match whose lease expired (its worker died): queued again, or failed
      once its attempts are spent;
    - a queued match whose job is gone from Redis (Redis lost it): sent again.
    Returns what to enqueue; enqueue it after this commits.
    """
    repairs = Repairs([], [], [])

    def work(session: Session) -> Repairs:
        moment = now()
        for match in session.scalars(
            select(Match)
            .where(Match.status == MatchStatus.RUNNING, Match.lease_until < moment)
            .with_for_update(skip_locked=True)
        ):
            status, job = _retry_or_fail(
                session, match, f"the worker playing it was lost (attempt {match.attempts})"
            )
            if status is MatchStatus.QUEUED:
                repairs.requeued.append((match.id, job))
            else:
                repairs.failed.append(match.id)
        for match in session.scalars(
            select(Match)
            .where(Match.status == MatchStatus.QUEUED, Match.queued_at < moment - lost_after)
            .with_for_update(skip_locked=True)
        ):
            if match.job_id is None or not job_exists(match.job_id):
                match.job_id = new_job_id(match.id)
                match.queued_at = moment
                repairs.resent.append((match.id, match.job_id))
        return repairs

    return db.transaction(work)
