"""An owner's own: what their bots printed in the matches they played."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.store.models import (
    Bot,
    BotVersion,
    Match,
    MatchStatus,
    Seat,
    Tournament,
)
from dashboard.queries.matches import PER_PAGE


def owner_seats(
    session: Session, owner_id: int, bot: str | None = None, limit: int = PER_PAGE
) -> list[dict[str, Any]]:
    """An owner's own seats in recorded matches, newest first (optionally one bot's): how
    each went and what the bot printed while playing it (``Seat.output``: the owner's
    eyes only, so this is only ever served to the owner's token)."""
    query = (
        select(
            Seat.match_id,
            Tournament.name.label("tournament"),
            Match.finished_at,
            Seat.seat,
            Bot.name.label("bot"),
            BotVersion.number,
            Seat.place,
            Seat.forfeit_kind,
            Seat.forfeit_reason,
            Seat.strikes,
            Seat.illegal,
            Seat.output,
        )
        .join(Match, Match.id == Seat.match_id)
        .join(Tournament, Tournament.id == Match.tournament_id)
        .join(BotVersion, BotVersion.id == Seat.bot_version_id)
        .join(Bot, Bot.id == BotVersion.bot_id)
        .where(Bot.owner_id == owner_id, Match.status == MatchStatus.DONE)
        .order_by(Seat.match_id.desc(), Seat.seat)
        .limit(limit)
    )
    if bot:
        query = query.where(Bot.name == bot)
    return [
        {
            "match": row.match_id,
            "tournament": row.tournament,
            "finished_at": row.finished_at.isoformat() if row.finished_at else None,
            "seat": row.seat,
            "bot": row.bot,
            "version": row.number,
            "place": row.place,
            "forfeit": row.forfeit_kind,
            "reason": row.forfeit_reason,
            "strikes": row.strikes,
            "illegal": row.illegal,
            "output": row.output,
        }
        for row in session.execute(query)
    ]
