"""Competitions: a standing ladder that a submitted bot joins by itself.

An operator opens a competition (a ladder of ``tables`` tables of ``table_size`` seats
that waits until it has a table's worth of bots). A bot is entered in it once; from then
on each version of it that qualifies takes its place there (its older version's entry
is retired: no longer seated or ranked), with no other step. A competition can be
paused (no new table; the ones in play finish), resumed, and closed (the ladder stops
and its standings are final); a new season reopens it with a fresh ladder. One
competition is the default: a submission enters it unless it names another, and
``/leaderboard`` shows its standings.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from arena.base.errors import Conflict, Forbidden, Invalid, NotFound
from arena.base.states import BotKind, CompetitionStatus, TournamentStatus, VersionStatus
from arena.engine import Ruleset
from arena.referee import RefereeSettings
from arena.store import ladder, teams, tournaments
from arena.store.bots import check_name
from arena.store.models import (
    BotVersion,
    Competition,
    CompetitionBot,
    Entry,
    RegisteredBot,
    Tournament,
    now,
)
from arena.tournament import formats, pacing, ratings

#: a competition's formats: a ladder, or a ladder on duplicate deals
LADDER = formats.LADDER.name
DUPLICATE_LADDER = "duplicate-ladder"
FORMATS = (LADDER, DUPLICATE_LADDER)


def create(
    session: Session,
    name: str,
    ruleset: Ruleset,
    table_size: int,
    tables: int = 2,
    bot_names: list[str] | None = None,
    settings: RefereeSettings | None = None,
    default: bool = False,
    opens_at: datetime | None = None,
    closes_at: datetime | None = None,
    format: str = LADDER,
    pace: float | None = pacing.DEFAULT_PACE,
    rating: str = ratings.DEFAULT.name,
    log_days: float | None = None,
    log_top: int = 0,
) -> Competition:
    """Open a competition; its ladder runs (and plays once it has enough bots, from
    ``opens_at`` if given, until ``closes_at`` if given). A ``duplicate-ladder`` plays
    each table once per seat rotation on the same deal. ``pace``: tables a minute once
    every rating is settled (None: every table kept in play; arena.tournament.pacing).
    ``rating``: the rating of record's name (arena.tournament.ratings), every season's.
    ``log_days``, ``log_top``: its logs' retention (arena.services.retention)."""
    name = check_name(name, "competition")
    if format not in FORMATS:
        raise Invalid.of("competition.format", format=format, formats=" or ".join(FORMATS))
    if opens_at is not None and closes_at is not None and closes_at <= opens_at:
        raise Invalid.of("competition.closes_first")
    if session.scalar(select(Competition).where(Competition.name == name)) is not None:
        raise Conflict.of("name.taken", what="competition", name=name)
    competition = Competition(
        name=name,
        season=1,
        is_default=default,
        opens_at=opens_at,
        closes_at=closes_at,
        log_days=log_days,
        log_top=log_top,
    )
    competition.tournament = _season_ladder(
        session, name, 1, ruleset, table_size, tables, settings, format == DUPLICATE_LADDER, rating
    )
    competition.tournament.pace = _checked(pace)
    if default:
        session.execute(update(Competition).values(is_default=False))
    session.add(competition)
    session.flush()
    for bot in bot_names or []:
        enter(session, competition, bot)
    return competition


def season_names(competition: Competition) -> list[str]:
    """The names of the ladders of every season so far, the first to the one in play."""
    return [_ladder_name(competition.name, season) for season in range(1, competition.season + 1)]


def _ladder_name(name: str, season: int) -> str:
    return f"{name}-season-{season}"


def _season_ladder(
    session: Session,
    name: str,
    season: int,
    ruleset: Ruleset,
    table_size: int,
    tables: int,
    settings: RefereeSettings | None,
    duplicate: bool = False,
    rating: str = ratings.DEFAULT.name,
) -> Tournament:
    ladder_name = _ladder_name(name, season)
    made = tournaments.create(
        session,
        ladder_name,
        ruleset,
        [],
        table_size,
        tables,
        settings=settings,
        format=formats.LADDER.name,
        duplicate=duplicate,
        reveal_delay=600,
        waits_for_bots=True,
        rating=rating,
    )
    made.status, made.started_at = TournamentStatus.RUNNING, now()
    return made


def get(session: Session, name: str) -> Competition:
    found = session.scalar(select(Competition).where(Competition.name == name))
    if found is None:
        raise NotFound.of("name.missing", what="competition", name=name)
    return found


def default(session: Session) -> Competition | None:
    return session.scalar(select(Competition).where(Competition.is_default.is_(True)))


def enter(session: Session, competition: Competition, bot_name: str) -> None:
    """Enter a bot: its active version plays at once if it has one, each later one as
    it qualifies."""
    bot = session.scalar(select(RegisteredBot).where(RegisteredBot.name == bot_name))
    if bot is None:
        raise NotFound.of("name.missing", what="bot", name=bot_name)
    active = session.scalar(
        select(BotVersion).where(BotVersion.bot_id == bot.id, BotVersion.active.is_(True))
    )
    if active is not None and not seats(competition, active):
        raise Invalid.of("competition.endpoints", name=competition.name)
    if bot.disqualified_at is not None:
        raise Forbidden.of("bot.disqualified", name=bot.name, reason=bot.disqualified_reason)
    if bot.team_id is not None:
        people = [owner.id for owner, _ in teams.members(session, bot.team_id)]
        teams.check_one_team_in(session, competition, bot.team_id, people)
    key = {"competition_id": competition.id, "bot_id": bot.id}
    if session.get(CompetitionBot, key) is None:
        session.add(CompetitionBot(**key))
    if active is not None and active.status is VersionStatus.READY:
        _seat_version(session, competition, active)


def entered(session: Session, bot_id: int) -> list[Competition]:
    """The competitions, not closed, a bot is entered in: the default first."""
    return list(
        session.scalars(
            select(Competition)
            .join(CompetitionBot, CompetitionBot.competition_id == Competition.id)
            .where(
                CompetitionBot.bot_id == bot_id,
                Competition.status != CompetitionStatus.CLOSED,
            )
            .order_by(Competition.is_default.desc(), Competition.id)
        )
    )


def on_qualified(session: Session, version: BotVersion) -> list[str]:
    """A version goes live: it takes its bot's place in every competition the bot is in
    that is not closed and seats it; the names of those competitions."""
    seated = [c for c in entered(session, version.bot_id) if seats(c, version)]
    for competition in seated:
        _seat_version(session, competition, version)
    return [competition.name for competition in seated]


def playing_in(session: Session, version: BotVersion) -> list[str]:
    """The competitions (not closed) whose ladder seats ``version`` now."""
    return list(
        session.scalars(
            select(Competition.name)
            .join(Entry, Entry.tournament_id == Competition.tournament_id)
            .where(
                Entry.bot_version_id == version.id,
                Entry.retired.is_(False),
                Competition.status != CompetitionStatus.CLOSED,
            )
            .order_by(Competition.name)
        )
    )


def seats(competition: Competition, version: BotVersion) -> bool:
    """Whether ``competition`` seats ``version``: any kind, but a duplicate competition
    no endpoint (the platform cannot give it a fresh memory for each rotation)."""
    return not (competition.tournament.duplicate and version.kind is BotKind.ENDPOINT)


def _seat_version(session: Session, competition: Competition, version: BotVersion) -> None:
    """``version`` takes its bot's place (an older version's entry is retired), unless
    the competition does not seat it: then the bot's entry stays as it is."""
    if not seats(competition, version) or version.disqualified_at is not None:
        return
    tournament_id = competition.tournament_id
    entries = session.scalars(
        select(Entry)
        .join(BotVersion, BotVersion.id == Entry.bot_version_id)
        .where(Entry.tournament_id == tournament_id, BotVersion.bot_id == version.bot_id)
    ).all()
    for entry in entries:
        entry.retired = entry.bot_version_id != version.id
    if not any(entry.bot_version_id == version.id for entry in entries):
        session.add(competition.tournament.new_entry(version.id))
    session.flush()


def set_status(session: Session, name: str, status: CompetitionStatus) -> Competition:
    """Pause, resume or close a competition (closing stops its ladder: final standings)."""
    competition = get(session, name)
    if competition.status is CompetitionStatus.CLOSED:
        raise Conflict.of("competition.closed", name=name)
    competition.status = status
    if status is CompetitionStatus.CLOSED:
        ladder.stop(session, competition.tournament)
    return competition


def new_season(session: Session, name: str) -> Competition:
    """Close the season in play (if it is not yet) and open the next, with the same bots
    and rules, every rating afresh."""
    competition = get(session, name)
    old = competition.tournament
    if old.status is not TournamentStatus.DONE:
        ladder.stop(session, old)
    competition.season += 1
    competition.tournament = _season_ladder(
        session,
        competition.name,
        competition.season,
        Ruleset.from_dict(old.rules),
        old.table_size,
        old.games,
        RefereeSettings(**old.settings),
        old.duplicate,
        old.rating_system,
    )
    competition.tournament.pace = old.pace
    competition.status = CompetitionStatus.OPEN
    competition.opens_at = competition.closes_at = None  # the last season's window
    session.flush()
    for bot_id in session.scalars(
        select(CompetitionBot.bot_id).where(CompetitionBot.competition_id == competition.id)
    ):
        bot = session.get(RegisteredBot, bot_id)
        assert bot is not None
        enter(session, competition, bot.name)
    return competition


def set_pace(session: Session, name: str, pace: float | None) -> Competition:
    """Change how fast the competition plays once settled (None: unpaced)."""
    competition = get(session, name)
    competition.tournament.pace = _checked(pace)
    competition.tournament.next_table_at = None  # the new pace applies at once
    return competition


def set_log_retention(session: Session, name: str, days: float | None, top: int) -> Competition:
    """Keep its logs ``days`` after their match (None: for ever), and every log of its
    ``top`` best entries'."""
    competition = get(session, name)
    competition.log_days, competition.log_top = days, top
    return competition


def _checked(pace: float | None) -> float | None:
    if pace is None:
        return None
    try:
        return pacing.check_pace(pace)
    except ValueError as error:
        raise Invalid(str(error)) from None


def accepts_tables(session: Session, tournament_id: int) -> bool:
    """Whether a ladder may seat new tables: not a paused or closed competition's."""
    status = session.scalar(
        select(Competition.status).where(Competition.tournament_id == tournament_id)
    )
    return status is None or status is CompetitionStatus.OPEN


def summary(session: Session, competition: Competition) -> dict[str, Any]:
    tournament = competition.tournament
    standings = tournaments.leaderboard(session, tournament)
    return {
        "name": competition.name,
        "season": competition.season,
        "status": competition.status.value,
        "default": competition.is_default,
        "opens_at": _iso(competition.opens_at),
        "closes_at": _iso(competition.closes_at),
        "ladder": tournament.name,
        "format": DUPLICATE_LADDER if tournament.duplicate else LADDER,
        "rating": tournament.rating_system,
        "rules": tournament.rules,
        "table_size": tournament.table_size,
        "tables": tournament.games,
        "pace": ladder.pace_of(session, tournament),
        #: its logs' retention: days kept (None: for ever), and the best entries whose
        #: logs all stay
        "log_days": competition.log_days,
        "log_top": competition.log_top,
        "bots": len(standings),
        "leaderboard": standings,
    }


def listing(session: Session) -> list[dict[str, Any]]:
    return [
        {k: v for k, v in summary(session, c).items() if k != "leaderboard"}
        for c in session.scalars(select(Competition).order_by(Competition.id))
    ]


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat(timespec="seconds")
