"""Matches: the list (filtered, a page at a time), one match, and its log as a reader may see it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, select, union
from sqlalchemy.orm import Session, selectinload

from arena.base.errors import Invalid, NotFound
from arena.base.states import MatchStatus
from arena.referee.log import MatchLog
from arena.referee.views import owners_text_only, public_view, seats_view
from arena.services.views.disclosure import Disclosure, disclosure
from arena.services.views.frames import EVERY_SEAT, frames
from arena.services.views.schemas import MatchPage, MatchPublic, Replay, SeatPublic
from arena.services.views.visibility import hidden_from, may_see
from arena.store import logs, teams
from arena.store.models import (
    BotVersion,
    MatchSeat,
    RegisteredBot,
    Tournament,
    TournamentMatch,
)

PER_PAGE = 50
#: a bot's versions walked one by one at most; a bot with more (a compound query has its
#: limits: 500 parts on SQLite) has the matches of all its versions' seats read as one set
MOST_WALKS = 20


def matches(
    session: Session,
    tournament: str | None = None,
    bot: str | None = None,
    status: str | None = None,
    page: int = 1,
    per_page: int = PER_PAGE,
    reader: int | None = None,
    before: int | None = None,
) -> MatchPage:
    """A page of matches, newest first, filtered by tournament, bot and status; each
    forfeit's words only for ``reader``'s own seats (an owner's id); another owner's
    private runs (scrimmages) left out. ``before``: the page of the matches older than
    that match (the page's ``next_before`` leads on; an index walk, however deep, where
    ``page`` counts past the earlier ones)."""
    asked = _Filters(
        reader=reader,
        tournament=tournament,
        status=_status(status) if status else None,
        before=before,
        offset=0 if before is not None else (page - 1) * per_page,
        per_page=per_page,
    )
    ids = _newest_ids(session, bot, asked)
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
    theirs = _teams_of(session, reader)
    names = dict(
        session.execute(
            select(Tournament.id, Tournament.name).where(
                Tournament.id.in_({m.tournament_id for m in found.values()})
            )
        ).all()
    )
    return MatchPage(
        items=[_match_row(found[i], names[found[i].tournament_id], theirs) for i in ids],
        page=page,
        per_page=per_page,
        has_next=has_next,
        next_before=ids[-1] if has_next else None,
    )


@dataclass(frozen=True)
class _Filters:
    """What a list asks of its matches, and which of the newest it shows."""

    reader: int | None
    tournament: str | None
    status: MatchStatus | None
    before: int | None
    offset: int
    per_page: int

    @property
    def first(self) -> int:
        """The newest matches a page needs: those before it, its own and one (a next page?)."""
        return self.offset + self.per_page + 1

    def newest(self, key: Any, query: Select[Any]) -> Select[Any]:
        """``query`` (of the matches' ids ``key``) filtered, its ``first`` newest."""
        query = query.where(TournamentMatch.tournament_id.not_in(hidden_from(self.reader)))
        if self.tournament:
            query = query.join(Tournament, Tournament.id == TournamentMatch.tournament_id).where(
                Tournament.name == self.tournament
            )
        if self.status:
            query = query.where(TournamentMatch.status == self.status)
        if self.before is not None:
            query = query.where(key < self.before)
        return query.order_by(key.desc()).limit(self.first)


def _newest_ids(session: Session, bot: str | None, asked: _Filters) -> list[int]:
    """The ids a list shows (and one more where a next page follows), newest first."""
    versions = _versions_of(session, bot) if bot is not None else []
    if bot is None or len(versions) > MOST_WALKS:
        query = select(TournamentMatch.id)
        if bot is not None:
            seated = select(MatchSeat.match_id).where(MatchSeat.bot_version_id.in_(versions))
            query = query.where(TournamentMatch.id.in_(seated))
        newest = asked.newest(TournamentMatch.id, query)
        return list(session.scalars(newest.offset(asked.offset)))
    if not versions:  # a name no bot has
        return []
    # each version's seats walked newest first on the index (version, match), then merged:
    # never all of a bot's seats read and sorted (40,000 at ten million)
    walks = [
        asked.newest(
            MatchSeat.match_id,
            select(MatchSeat.match_id.label("id"))
            .join(TournamentMatch, TournamentMatch.id == MatchSeat.match_id)
            .where(MatchSeat.bot_version_id == version)
            .distinct(),
        ).subquery()
        for version in versions
    ]
    merged = union(*(select(walk.c.id) for walk in walks)).subquery()
    query = select(merged.c.id).order_by(merged.c.id.desc()).limit(asked.first)
    return list(session.scalars(query.offset(asked.offset)))


def _status(status: str) -> MatchStatus:
    """The status a filter names (Invalid for a name no status has)."""
    if status not in {s.value for s in MatchStatus}:
        raise Invalid(
            f"unknown status {status!r}: expected one of {', '.join(s.value for s in MatchStatus)}"
        )
    return MatchStatus(status)


def _versions_of(session: Session, bot: str) -> list[int]:
    """The ids of a bot's versions (none for a name no bot has)."""
    return list(
        session.scalars(select(BotVersion.id).join(RegisteredBot).where(RegisteredBot.name == bot))
    )


def _match_row(
    match: TournamentMatch, tournament_name: str, theirs: frozenset[int] = frozenset()
) -> MatchPublic:
    """A match as listed; a forfeit's words only on the seats of bots of ``theirs`` (the
    reader's teams)."""
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
                # a bot's exception text is its team's
                reason=s.forfeit_reason if s.version.bot.team_id in theirs else None,
                strikes=s.strikes,
                illegal=s.illegal,
                latency_mean_ms=s.latency_mean_ms,
                latency_p99_ms=s.latency_p99_ms,
            )
            for s in match.seats
        ],
    )


def _teams_of(session: Session, reader: int | None) -> frozenset[int]:
    """The reader's teams (read once a page, not once a seat)."""
    return frozenset(t.id for t in teams.teams_of(session, reader)) if reader else frozenset()


def match(session: Session, match_id: int, reader: int | None = None) -> MatchPublic:
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
    tournament = _visible(session, found, reader)
    return _match_row(found, tournament.name, _teams_of(session, reader))


def _visible(session: Session, match: TournamentMatch, reader: int | None) -> Tournament:
    """The match's tournament, if ``reader`` may see the match (else NotFound)."""
    tournament = session.get_one(Tournament, match.tournament_id)
    if not may_see(tournament, reader):
        raise NotFound(f"no match {match.id}")
    return tournament


def match_log(
    session: Session, match_id: int, reader: int | None = None
) -> tuple[MatchLog, Disclosure]:
    """The full log, for the server's own use, and whether it may be shown whole (a
    private run's only if ``reader`` owns it)."""
    found = session.get(TournamentMatch, match_id)
    if found is None:
        raise NotFound(f"match {match_id} has no log (not played yet?)")
    tournament = _visible(session, found, reader)  # before anything is said of its log
    blob = logs.blob(session, match_id)  # from the cold store once it is old; Gone: dropped
    if blob is None:
        raise NotFound(f"match {match_id} has no log (not played yet?)")
    return MatchLog.from_dict(logs.decode(blob)), disclosure(session, found, tournament)


def readable_log(
    session: Session, match_id: int, reader: int | None = None
) -> tuple[dict[str, Any], Disclosure]:
    """What the reader (an owner's id; None: anyone) may read of a match's log now, and
    its disclosure: the full log once its seed and hands are public
    (arena.services.views.disclosure; it never changes again), else the view of the seats the
    reader's bots held (their own hands: what those bots saw), else the public view
    (arena.referee.views)."""
    log, shown = match_log(session, match_id, reader)
    mine = own_seats(session, match_id, reader)
    if shown.public:  # every card; each forfeit's words still its owner's
        return {**owners_text_only(log, mine).to_dict(), "disclosure": shown.reason}, shown
    readable = seats_view(log, mine) if mine else public_view(log)
    return {**readable.to_dict(), "disclosure": _seen(shown, mine)}, shown


def replay(session: Session, match_id: int, reader: int | None = None) -> Replay:
    """The match's replay frames as the reader may see them (see :func:`readable_log`)."""
    full, shown = match_log(session, match_id, reader)
    mine = own_seats(session, match_id, reader)
    log = owners_text_only(full, mine)
    visible = EVERY_SEAT if shown.public else frozenset(mine)
    return Replay(
        match=match_id,
        names=log.names,
        mine=sorted(mine),
        public=shown.public,
        disclosure=shown.reason if shown.public else _seen(shown, mine),
        frames=frames(log, visible),
    )


def own_seats(session: Session, match_id: int, owner_id: int | None) -> set[int]:
    """The seats of ``match_id`` held by ``owner_id``'s bots."""
    if owner_id is None:
        return set()
    return set(
        session.scalars(
            select(MatchSeat.seat)
            .join(BotVersion, BotVersion.id == MatchSeat.bot_version_id)
            .join(RegisteredBot, RegisteredBot.id == BotVersion.bot_id)
            .where(MatchSeat.match_id == match_id, teams.in_teams_of(owner_id))
        )
    )


def _seen(shown: Disclosure, mine: set[int]) -> str:
    if not mine:
        return shown.reason
    seats = ", ".join(str(seat) for seat in sorted(mine))
    return (
        f"your seat{'s' if len(mine) > 1 else ''} {seats}: your own cards, as your bot saw "
        f"them; the others' cards are face down, {shown.reason}"
    )
