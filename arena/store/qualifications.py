"""Qualification matches, kept as matches: the one heads-up match a submitted version
plays against a sample bot is stored like any other (seats, results, its log, what an
uploaded bot printed, shown to its owner only) in a tournament of the platform's own
that nothing schedules or rates, and the version names it
(``BotVersion.qualification_match_id``): pages and the API link the match that accepted
or rejected it."""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.engine import Ruleset
from arena.referee import RefereeSettings
from arena.referee.log import MatchLog
from arena.store import bots as bot_store
from arena.store import logs
from arena.store.models import (
    BotVersion,
    MatchSeat,
    MatchStatus,
    RegisteredBot,
    StoredLog,
    Tournament,
    TournamentFormat,
    TournamentMatch,
    TournamentStatus,
    now,
)
from arena.store.results import seat_results
from arena.tournament import seeds

#: the tournament's name: with a '.', like an A/B test's, and refused to others
#: (arena.store.tournaments.RESERVED)
NAME = "platform.qualification"


def record(
    session: Session,
    version: BotVersion,
    log: MatchLog,
    rules: Ruleset,
    settings: RefereeSettings,
    output: str | None = None,
) -> TournamentMatch:
    """Store ``version``'s qualification match (it sat at seat 0 of ``log``, a sample
    bot at seat 1) and link it from the version."""
    tournament = _tournament(session, rules, settings)
    finished = now()
    match = TournamentMatch(
        tournament_id=tournament.id,
        index=tournament.games,
        seed=str(log.seed or ""),
        status=MatchStatus.DONE,
        attempts=1,
        started_at=finished - timedelta(milliseconds=log.duration_ms or 0),
        finished_at=finished,
        completion=tournament.completed + 1,
    )
    opponent = _sample_version(session, log.seats[1].name)
    rows = seat_results(log, {0: output} if output else {})
    match.seats = [
        MatchSeat(seat=index, bot_version_id=version_id, **row)
        for index, (version_id, row) in enumerate(zip((version.id, opponent.id), rows, strict=True))
    ]
    session.add(match)
    session.flush()
    blob = logs.encode(log)
    session.add(StoredLog(match_id=match.id, data=blob, size=len(blob)))
    tournament.games += 1
    tournament.completed += 1
    tournament.finished_at = finished
    version.qualification_match_id = match.id
    return match


def _tournament(session: Session, rules: Ruleset, settings: RefereeSettings) -> Tournament:
    found = session.scalar(select(Tournament).where(Tournament.name == NAME))
    if found is not None:
        return found
    moment: datetime = now()
    tournament = Tournament(
        name=NAME,
        rules=rules.to_dict(),
        table_size=2,
        games=0,
        format=TournamentFormat.QUALIFICATION,
        secret_key=seeds.new_key(),  # unused: each match is dealt from a key of its own
        reveal_delay=0,
        settings=asdict(settings),
        status=TournamentStatus.DONE,
        created_at=moment,
        started_at=moment,
    )
    session.add(tournament)
    session.flush()
    return tournament


def _sample_version(session: Session, sample: str) -> BotVersion:
    """The operator's bot for sample ``sample``, registered now if it is not yet (under
    ``sample.NAME`` if another bot took the name)."""
    bot = session.scalar(select(RegisteredBot.id).where(RegisteredBot.name == sample))
    found = bot_store.existing_sample(session, sample, sample)
    if found is not None or bot is None:
        return found or bot_store.register_sample(session, sample)
    return bot_store.register_sample(session, f"sample.{sample}", sample)
