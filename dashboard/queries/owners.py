"""An owner's own: what their bots printed in the matches they played."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.store.models import (
    BotVersion,
    MatchSeat,
    MatchStatus,
    RegisteredBot,
    Tournament,
    TournamentMatch,
)
from dashboard.queries.matches import PER_PAGE
from dashboard.schemas import OwnSeat


def owner_seats(
    session: Session, owner_id: int, bot: str | None = None, limit: int = PER_PAGE
) -> list[OwnSeat]:
    """An owner's own seats in recorded matches, newest first (optionally one bot's): how
    each went and what the bot printed while playing it (``Seat.output``: the owner's
    eyes only, so this is only ever served to the owner's token)."""
    query = (
        select(
            MatchSeat.match_id,
            Tournament.name.label("tournament"),
            TournamentMatch.finished_at,
            MatchSeat.seat,
            RegisteredBot.name.label("bot"),
            BotVersion.number,
            MatchSeat.place,
            MatchSeat.forfeit_kind,
            MatchSeat.forfeit_reason,
            MatchSeat.strikes,
            MatchSeat.illegal,
            MatchSeat.output,
        )
        .join(TournamentMatch, TournamentMatch.id == MatchSeat.match_id)
        .join(Tournament, Tournament.id == TournamentMatch.tournament_id)
        .join(BotVersion, BotVersion.id == MatchSeat.bot_version_id)
        .join(RegisteredBot, RegisteredBot.id == BotVersion.bot_id)
        .where(RegisteredBot.owner_id == owner_id, TournamentMatch.status == MatchStatus.DONE)
        .order_by(MatchSeat.match_id.desc(), MatchSeat.seat)
        .limit(limit)
    )
    if bot:
        query = query.where(RegisteredBot.name == bot)
    return [
        OwnSeat(
            match=row.match_id,
            tournament=row.tournament,
            finished_at=row.finished_at.isoformat() if row.finished_at else None,
            seat=row.seat,
            bot=row.bot,
            version=row.number,
            place=row.place,
            forfeit=row.forfeit_kind,
            reason=row.forfeit_reason,
            strikes=row.strikes,
            illegal=row.illegal,
            output=row.output,
        )
        for row in session.execute(query)
    ]
