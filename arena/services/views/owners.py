"""An owner's own seats: how each match went and what their bots printed, filtered and paged."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import Session

from arena.base.errors import Invalid
from arena.base.states import MatchStatus
from arena.services.views.matches import PER_PAGE
from arena.services.views.schemas import OwnSeat, OwnSeatPage
from arena.store import competitions, teams
from arena.store.models import BotVersion, MatchSeat, RegisteredBot, Tournament, TournamentMatch


@dataclass(frozen=True)
class SeatFilter:
    """Which of an owner's seats to list: a bot, a version of it, the matches it won or
    lost (any place after the first), forfeited, or played in a competition (any season)
    or a tournament."""

    bot: str | None = None
    version: int | None = None
    result: Literal["won", "lost"] | None = None
    forfeit: bool | None = None
    competition: str | None = None
    tournament: str | None = None


def owner_seats(
    session: Session, owner_id: int, bot: str | None = None, limit: int = PER_PAGE
) -> list[OwnSeat]:
    """An owner's own seats in recorded matches, newest first (optionally one bot's)."""
    return seat_page(session, owner_id, SeatFilter(bot=bot), 1, limit).items


#: seats counted at most for a page's total (an owner's history grows with the season)
COUNTED = 1_000


def seat_page(
    session: Session, owner_id: int, only: SeatFilter, page: int = 1, per_page: int = PER_PAGE
) -> OwnSeatPage:
    """A page of an owner's own seats in recorded matches, newest first, filtered: how
    each went and what the bot printed while playing it (``Seat.output``: the owner's
    eyes only, so this is only ever served to the owner's token)."""
    if only.version is not None and only.bot is None:
        raise Invalid("a version is a version of a bot: name the bot too")
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
        .where(
            teams.in_teams_of(owner_id),
            TournamentMatch.status == MatchStatus.DONE,
            *_conditions(session, only),
        )
    )
    counted = query.limit(COUNTED + 1).subquery()  # a long history is not counted out
    total = session.scalar(select(func.count()).select_from(counted)) or 0
    rows = session.execute(
        query.order_by(MatchSeat.match_id.desc(), MatchSeat.seat)
        .limit(per_page + 1)
        .offset((page - 1) * per_page)
    ).all()
    return OwnSeatPage(
        items=[_own_seat(row) for row in rows[:per_page]],
        page=page,
        per_page=per_page,
        has_next=len(rows) > per_page,
        total=min(total, COUNTED),
        total_exact=total <= COUNTED,
    )


def _conditions(session: Session, only: SeatFilter) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = []
    if only.bot:
        conditions.append(RegisteredBot.name == only.bot)
    if only.version is not None:
        conditions.append(BotVersion.number == only.version)
    if only.result == "won":
        conditions.append(MatchSeat.place == 1)
    elif only.result == "lost":
        conditions.append(MatchSeat.place > 1)
    if only.forfeit is not None:
        conditions.append(MatchSeat.forfeit.is_(only.forfeit))
    if only.tournament:
        conditions.append(Tournament.name == only.tournament)
    if only.competition:
        competition = competitions.get(session, only.competition)
        conditions.append(Tournament.name.in_(competitions.season_names(competition)))
    return conditions


def _own_seat(row: Any) -> OwnSeat:
    return OwnSeat(
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
