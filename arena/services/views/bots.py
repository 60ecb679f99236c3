"""Bots: the list, the global leaderboard, one bot's page and chart."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from arena.base.errors import NotFound
from arena.base.figures import rounded
from arena.base.people import Someone
from arena.base.states import MatchStatus, VersionStatus
from arena.services.views.matches import matches
from arena.services.views.ratings import rating_history
from arena.services.views.schemas import (
    BotPage,
    BotPublic,
    SeatFailure,
    VersionPublic,
    VersionState,
)
from arena.services.views.visibility import hidden_from, visible_to
from arena.store import competitions, teams
from arena.store import tournaments as tournament_store
from arena.store.models import (
    AbTest,
    BotVersion,
    Entry,
    MatchSeat,
    RegisteredBot,
    Tournament,
    TournamentMatch,
    seat_failed,
)


def bots(session: Session) -> list[BotPublic]:
    return [
        _bot_summary(bot, {})
        for bot in session.scalars(
            select(RegisteredBot)
            .options(selectinload(RegisteredBot.versions), selectinload(RegisteredBot.team))
            .order_by(RegisteredBot.name)
        )
    ]


def global_leaderboard(session: Session) -> list[dict[str, Any]]:
    """The default competition's standings (one field: ratings from different fields are
    never compared), then the bots that have not played there yet."""
    main = competitions.default(session)
    rated = []
    if main is not None:
        for row in tournament_store.leaderboard(session, main.tournament):
            if row.games:
                shown = {
                    "bot": row.bot,
                    "version": row.version,
                    "tournament": main.tournament.name,
                    "competition": main.name,
                    "mu": row.mu,
                    "sigma": row.sigma,
                    "score": row.score,
                    "games": row.games,
                }
                rated.append(rounded(shown))
    ranked = {row["bot"] for row in rated}
    unplayed = [
        {"bot": name, "version": None, "tournament": None, "games": 0}
        for name in session.scalars(
            select(RegisteredBot.name)
            .where(RegisteredBot.disqualified_at.is_(None))
            .order_by(RegisteredBot.name)
        )
        if name not in ranked
    ]
    return [{"rank": i + 1, **row} for i, row in enumerate(rated)] + unplayed


def standing_by_bot(session: Session) -> dict[str, dict[str, Any]]:
    """Each rated bot's row of the default competition's standings, by its name."""
    return {row["bot"]: row for row in global_leaderboard(session) if row.get("tournament")}


def duplicate_tournaments(session: Session, names: list[str]) -> set[str]:
    """Those of the tournaments ``names`` that play duplicate deals."""
    found = select(Tournament.name).where(Tournament.name.in_(names), Tournament.duplicate)
    return set(session.scalars(found))


def _bot_summary(
    bot: RegisteredBot, gates: dict[int, tuple[str, str]], owners_view: bool = False
) -> BotPublic:
    versions = [_version(v, gates.get(v.id), owners_view) for v in bot.versions]
    return BotPublic(
        name=bot.name,
        versions=versions,
        people_may_play=bot.people_may_play,
        scrimmage_rival=bot.scrimmage_rival,
        team=bot.team.name if bot.team is not None else None,
        disqualified=bot.disqualified_at is not None,
        disqualified_reason=bot.disqualified_reason if owners_view else None,
    )


def _version(
    version: BotVersion, gate: tuple[str, str] | None = None, owners_view: bool = False
) -> VersionPublic:
    return VersionPublic(
        number=version.number,
        kind=version.kind.value,
        target=version.target,
        active=version.active,
        status=version.status.value,
        state=version_state(version),
        live_since=version.live_since.isoformat() if version.live_since else None,
        gate=gate[0] if gate else None,
        gate_status=gate[1] if gate else None,
        reason=version.reason,
        detail=version.detail if owners_view else None,
        language=version.language,
        build_log=version.build.log if owners_view and version.build is not None else None,
        qualification_match=version.qualification_match_id,
        max_matches=version.max_matches,
        announced_matches=version.announced_matches,
        created_at=version.created_at.isoformat(),
        disqualified_reason=version.disqualified_reason if owners_view else None,
    )


def version_state(version: BotVersion) -> VersionState:
    if version.disqualified_at is not None:
        return "disqualified"
    if version.active:
        return "live"
    if version.status is VersionStatus.READY:
        return "earlier" if version.live_since else "staged"
    return "pending" if version.status is VersionStatus.PENDING else "rejected"


def _gates(session: Session, bot: RegisteredBot) -> dict[int, tuple[str, str]]:
    """The gates of a bot's versions: version id -> its A/B test's name and status."""
    rows = session.execute(
        select(AbTest.new_version_id, AbTest.name, AbTest.status).where(
            AbTest.promote.is_(True), AbTest.new_version_id.in_([v.id for v in bot.versions])
        )
    )
    return {version_id: (name, status.value) for version_id, name, status in rows}


def bot_ratings(
    session: Session, found: RegisteredBot, tournament: str | None = None
) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """A bot's rating histories by tournament (or in ``tournament`` only), every version
    that played there on one chart."""
    versions = [v.id for v in found.versions]
    played_in = session.execute(
        select(Tournament.id, Tournament.name, Entry.bot_version_id)
        .join(Entry, Entry.tournament_id == Tournament.id)
        .where(
            Entry.bot_version_id.in_(versions),
            Entry.games > 0,
            visible_to(None),
            *([Tournament.name == tournament] if tournament is not None else []),
        )
        .order_by(Tournament.id, Entry.bot_version_id)
    ).all()
    by_tournament: dict[tuple[int, str], list[int]] = {}
    for tournament_id, tournament_name, version in played_in:
        by_tournament.setdefault((tournament_id, tournament_name), []).append(version)
    return {
        tournament_name: rating_history(session, tournament_id, compared)
        for (tournament_id, tournament_name), compared in by_tournament.items()
    }


def bot_chart(session: Session, name: str, tournament: str) -> dict[str, list[dict[str, Any]]]:
    """A bot's rating histories in one tournament (its chart on the bot's page)."""
    histories = bot_ratings(session, _bot(session, name), tournament)
    if tournament not in histories:
        raise NotFound(f"bot {name!r} has no rated match in {tournament!r}")
    return histories[tournament]


def _bot(session: Session, name: str) -> RegisteredBot:
    found = session.scalar(
        select(RegisteredBot)
        .where(RegisteredBot.name == name)
        .options(selectinload(RegisteredBot.versions))
    )
    if found is None:
        raise NotFound(f"no bot named {name!r}")
    return found


def bot_exists(session: Session, name: str) -> None:
    """Raise NotFound unless a bot is named ``name``."""
    if session.scalar(select(RegisteredBot.id).where(RegisteredBot.name == name)) is None:
        raise NotFound(f"no bot named {name!r}")


def bot(session: Session, name: str, recent: int = 20, reader: Someone | None = None) -> BotPage:
    """A bot's page; its rejected versions' details (what the bot printed) only for
    ``reader`` when it is the bot's owner."""
    found = _bot(session, name)
    owners_view = reader is not None and teams.manages(session, reader.id, found)
    versions = [v.id for v in found.versions]
    ratings = bot_ratings(session, found)
    matches_page = matches(session, bot=name, per_page=recent)
    failures = session.execute(
        select(
            MatchSeat.match_id,
            MatchSeat.seat,
            MatchSeat.forfeit_kind,
            MatchSeat.forfeit_reason,
            MatchSeat.strikes,
            MatchSeat.illegal,
            BotVersion.number,
        )
        .join(BotVersion, BotVersion.id == MatchSeat.bot_version_id)
        .join(TournamentMatch, TournamentMatch.id == MatchSeat.match_id)
        .where(
            MatchSeat.bot_version_id.in_(versions),
            seat_failed(),  # as its partial index says it
            TournamentMatch.tournament_id.not_in(hidden_from(reader.id if reader else None)),
        )
        .order_by(MatchSeat.match_id.desc())
        .limit(recent)
    ).all()
    return BotPage(
        **dict(_bot_summary(found, _gates(session, found), owners_view)),
        unreachable=_unreachable(session, [v.id for v in found.versions if v.active]),
        ratings=ratings,
        recent_matches=matches_page.items,
        failures=[
            SeatFailure(
                match=f.match_id,
                seat=f.seat,
                version=f.number,
                forfeit=f.forfeit_kind,
                reason=f.forfeit_reason if owners_view else None,
                strikes=f.strikes,
                illegal=f.illegal,
            )
            for f in failures
        ],
    )


#: recorded matches in a row the active version could not be reached in before its
#: page says so
UNREACHABLE_STREAK = 3


def _unreachable(session: Session, active: list[int]) -> str | None:
    """Why the active version was unreachable in each of its last matches, if it was."""
    last = session.execute(
        select(MatchSeat.forfeit_kind, MatchSeat.forfeit_reason)
        .join(TournamentMatch, TournamentMatch.id == MatchSeat.match_id)
        .where(MatchSeat.bot_version_id.in_(active), TournamentMatch.status == MatchStatus.DONE)
        .order_by(TournamentMatch.id.desc())
        .limit(UNREACHABLE_STREAK)
    ).all()
    if len(last) < UNREACHABLE_STREAK or any(kind != "unreachable" for kind, _ in last):
        return None
    return last[0].forfeit_reason


def playable(session: Session) -> list[str]:
    """The bots people may sit with: those with a live, qualified version whose owner
    lets people play them (the samples are always there: ``sample:NAME``)."""
    return list(
        session.scalars(
            select(RegisteredBot.name)
            .join(BotVersion, BotVersion.bot_id == RegisteredBot.id)
            .where(
                RegisteredBot.people_may_play,
                BotVersion.active,
                BotVersion.status == VersionStatus.READY,
            )
            .order_by(RegisteredBot.name)
        )
    )
