"""Matches: the list (filtered, a page at a time), one match, and its log as a reader may see it."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from arena.referee.log import MatchLog
from arena.referee.views import public_view
from arena.store import logs
from arena.store.disclosure import Disclosure, disclosure
from arena.store.errors import Invalid, NotFound
from arena.store.models import (
    BotVersion,
    MatchSeat,
    MatchStatus,
    RegisteredBot,
    StoredLog,
    Tournament,
    TournamentMatch,
)
from dashboard.schemas import MatchPage, MatchPublic, SeatPublic

PER_PAGE = 50


def matches(
    session: Session,
    tournament: str | None = None,
    bot: str | None = None,
    status: str | None = None,
    page: int = 1,
    per_page: int = PER_PAGE,
) -> MatchPage:
    """A page of matches, newest first, filtered by tournament, bot and status."""
    query = select(TournamentMatch.id).order_by(TournamentMatch.id.desc())
    if tournament:
        query = query.join(Tournament, Tournament.id == TournamentMatch.tournament_id).where(
            Tournament.name == tournament
        )
    if status:
        if status not in {s.value for s in MatchStatus}:
            raise Invalid(
                f"unknown status {status!r}: expected one of "
                f"{', '.join(s.value for s in MatchStatus)}"
            )
        query = query.where(TournamentMatch.status == MatchStatus(status))
    if bot:
        versions = select(BotVersion.id).join(RegisteredBot).where(RegisteredBot.name == bot)
        query = query.where(
            TournamentMatch.id.in_(
                select(MatchSeat.match_id).where(MatchSeat.bot_version_id.in_(versions))
            )
        )
    ids = list(session.scalars(query.limit(per_page + 1).offset((page - 1) * per_page)))
    has_next = len(ids) > per_page
    ids = ids[:per_page]
    found = {
        m.id: m
        for m in session.scalars(
            select(TournamentMatch)
            .where(TournamentMatch.id.in_(ids))
            .options(
                selectinload(TournamentMatch.seats)
                .joinedload(MatchSeat.version)
                .joinedload(BotVersion.bot)
            )
        )
    }
    names = dict(
        session.execute(
            select(Tournament.id, Tournament.name).where(
                Tournament.id.in_({m.tournament_id for m in found.values()})
            )
        ).all()
    )
    return MatchPage(
        items=[_match_row(found[i], names[found[i].tournament_id]) for i in ids],
        page=page,
        per_page=per_page,
        has_next=has_next,
    )


def _match_row(match: TournamentMatch, tournament_name: str) -> MatchPublic:
    return MatchPublic(
        id=match.id,
        tournament=tournament_name,
        index=match.index,
        status=match.status.value,
        attempts=match.attempts,
        error=match.error,
        finished_at=match.finished_at.isoformat() if match.finished_at else None,
        seats=[
            SeatPublic(
                seat=s.seat,
                bot=s.version.bot.name,
                version=s.version.number,
                place=s.place,
                forfeit=s.forfeit_kind,
                reason=s.forfeit_reason,
                strikes=s.strikes,
                illegal=s.illegal,
                latency_mean_ms=s.latency_mean_ms,
                latency_p99_ms=s.latency_p99_ms,
            )
            for s in match.seats
        ],
    )


def match(session: Session, match_id: int) -> MatchPublic:
    found = session.scalar(
        select(TournamentMatch)
        .where(TournamentMatch.id == match_id)
        .options(
            selectinload(TournamentMatch.seats)
            .joinedload(MatchSeat.version)
            .joinedload(BotVersion.bot)
        )
    )
    if found is None:
        raise NotFound(f"no match {match_id}")
    name = session.scalars(
        select(Tournament.name).where(Tournament.id == found.tournament_id)
    ).one()
    return _match_row(found, name)


def match_log(session: Session, match_id: int) -> tuple[MatchLog, Disclosure]:
    """The full log, for the server's own use, and whether it may be shown whole."""
    found = session.get(TournamentMatch, match_id)
    blob = session.scalar(select(StoredLog.data).where(StoredLog.match_id == match_id))
    if found is None or blob is None:
        raise NotFound(f"match {match_id} has no log (not played yet?)")
    tournament = session.get(Tournament, found.tournament_id)
    assert tournament is not None
    return MatchLog.from_dict(logs.decode(blob)), disclosure(session, found, tournament)


def public_log(session: Session, match_id: int) -> dict[str, Any]:
    """What anyone may read of a match's log now: the full log once its seed and hands
    are public (arena.store.disclosure), else its public view (arena.referee.views)."""
    log, shown = match_log(session, match_id)
    readable = log if shown.public else public_view(log)
    return {**readable.to_dict(), "disclosure": shown.reason}
