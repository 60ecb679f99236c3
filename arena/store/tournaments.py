"""Tournaments: create and schedule, start, follow, and the leaderboard."""

from __future__ import annotations

import uuid
from dataclasses import asdict
from typing import Any

from sqlalchemy import case, func, select
from sqlalchemy.orm import Session

from arena import ratings
from arena.engine import Game, RulesError, Ruleset
from arena.referee import RefereeSettings
from arena.schedule import round_robin
from arena.store.bots import StoreError, active_version
from arena.store.models import (
    Entry,
    Match,
    MatchStatus,
    Seat,
    Tournament,
    TournamentStatus,
    now,
)


def create(
    session: Session,
    name: str,
    ruleset: Ruleset,
    bot_names: list[str],
    table_size: int,
    games: int,
    seed: str | None = None,
    settings: RefereeSettings | None = None,
) -> Tournament:
    """A round-robin tournament with its matches scheduled (not yet started)."""
    name = name.strip()
    if not name or len(name) > 100:
        raise StoreError("a tournament name has 1 to 100 characters")
    if session.scalar(select(Tournament).where(Tournament.name == name)) is not None:
        raise StoreError(f"a tournament named {name!r} exists already")
    if games < 1:
        raise StoreError("a tournament plays at least one game")
    if len(set(bot_names)) != len(bot_names):
        raise StoreError("a bot is listed twice")
    try:
        Game(ruleset, table_size)
    except RulesError as error:
        raise StoreError(f"table size {table_size}: {error}") from None
    versions = [active_version(session, bot) for bot in bot_names]
    try:
        tables = round_robin([v.id for v in versions], table_size, games, seed or name)
    except ValueError as error:
        raise StoreError(str(error)) from None
    tournament = Tournament(
        name=name,
        rules=ruleset.to_dict(),
        table_size=table_size,
        games=games,
        seed=seed or uuid.uuid4().hex[:12],
        settings=asdict(settings or RefereeSettings()),
    )
    session.add(tournament)
    session.flush()
    start = ratings.new_rating()
    session.add_all(
        Entry(tournament_id=tournament.id, bot_version_id=v.id, mu=start.mu, sigma=start.sigma)
        for v in versions
    )
    for index, table in enumerate(tables):
        match = Match(tournament_id=tournament.id, index=index, seed=f"{tournament.seed}/{index}")
        match.seats = [
            Seat(seat=seat, bot_version_id=version) for seat, version in enumerate(table)
        ]
        session.add(match)
    session.flush()
    return tournament


def get(session: Session, name: str) -> Tournament:
    tournament = session.scalar(select(Tournament).where(Tournament.name == name))
    if tournament is None:
        raise StoreError(f"no tournament named {name!r}")
    return tournament


def start(session: Session, name: str) -> list[tuple[int, str]]:
    """Mark the tournament running and its pending matches queued.

    Returns ``(match id, job id)`` pairs to enqueue once this transaction commits (a
    failed enqueue is repaired by the reconciler, which re-sends queued matches whose
    job is missing)."""
    tournament = get(session, name)
    if tournament.status is TournamentStatus.DONE:
        raise StoreError(f"tournament {name!r} is over")
    tournament.status = TournamentStatus.RUNNING
    tournament.started_at = tournament.started_at or now()
    jobs = []
    for match in session.scalars(
        select(Match)
        .where(Match.tournament_id == tournament.id, Match.status == MatchStatus.PENDING)
        .order_by(Match.index)
    ):
        match.status = MatchStatus.QUEUED
        match.job_id = new_job_id(match.id)
        match.queued_at = now()
        jobs.append((match.id, match.job_id))
    return jobs


def new_job_id(match_id: int) -> str:
    return f"arena-match-{match_id}-{uuid.uuid4().hex[:8]}"


def progress(session: Session, tournament: Tournament) -> dict[str, int]:
    counts = dict(
        session.execute(
            select(Match.status, func.count())
            .where(Match.tournament_id == tournament.id)
            .group_by(Match.status)
        ).all()
    )
    result = {status.value: counts.get(status, 0) for status in MatchStatus}
    result["total"] = sum(counts.values())
    return result


def leaderboard(session: Session, tournament: Tournament) -> list[dict[str, Any]]:
    """Entries by ``mu - 3 sigma``, with games, mean place, forfeits and failures."""
    stats = {
        row.bot_version_id: row
        for row in session.execute(
            select(
                Seat.bot_version_id,
                func.count().label("games"),
                func.avg(Seat.place).label("mean_place"),
                func.sum(case((Seat.place == 1, 1), else_=0)).label("wins"),
                func.sum(case((Seat.forfeit.is_(True), 1), else_=0)).label("forfeits"),
                func.sum(Seat.strikes).label("strikes"),
                func.sum(Seat.illegal).label("illegal"),
            )
            .join(Match, Match.id == Seat.match_id)
            .where(Match.tournament_id == tournament.id, Match.status == MatchStatus.DONE)
            .group_by(Seat.bot_version_id)
        )
    }
    rows = []
    for entry in tournament.entries:
        row = stats.get(entry.bot_version_id)
        rows.append(
            {
                "bot": entry.version.bot.name,
                "version": entry.version.number,
                "mu": round(entry.mu, 3),
                "sigma": round(entry.sigma, 3),
                "score": round(entry.mu - 3 * entry.sigma, 3),
                "games": entry.games,
                "mean_place": round(float(row.mean_place), 3) if row else None,
                "wins": int(row.wins or 0) if row else 0,
                "forfeits": int(row.forfeits or 0) if row else 0,
                "strikes": int(row.strikes or 0) if row else 0,
                "illegal": int(row.illegal or 0) if row else 0,
            }
        )
    rows.sort(key=lambda r: -r["score"])
    for rank, row in enumerate(rows, 1):
        row["rank"] = rank
    return rows


def status(session: Session, name: str) -> dict[str, Any]:
    tournament = get(session, name)
    return {
        "name": tournament.name,
        "status": tournament.status.value,
        "rules": tournament.rules,
        "table_size": tournament.table_size,
        "games": tournament.games,
        "matches": progress(session, tournament),
        "leaderboard": leaderboard(session, tournament),
    }
