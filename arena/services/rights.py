"""Who may do what with a tournament: the operator's tournaments count, an owner's are
private.

The operator (the command line, or a worker's platform) creates any tournament, ladder
or competition; those are the ones that count and the only ones on the public
leaderboard. An owner (an API token) may create **private** tournaments, only with bots
of their own and the samples, within :class:`PrivateLimits`; only its creator (or the
operator) starts one. An owner submits at most :class:`SubmissionRate` versions an
hour. docs/api.md has every route's rights in one table.
"""

from __future__ import annotations

import math
from datetime import timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.base.errors import Forbidden, Invalid, TooMany
from arena.base.people import Someone
from arena.base.states import BotKind, TournamentStatus
from arena.store import teams
from arena.store.limits import PrivateLimits, SubmissionRate
from arena.store.models import BotVersion, Competition, RegisteredBot, Tournament, now
from arena.tournament.formats.base import Format


def check_private(
    session: Session,
    owner: Someone,
    bot_names: list[str],
    games: int,
    format: Format,
    deadline: float,
    limits: PrivateLimits,
) -> None:
    """Refuse a private tournament the owner may not create (``Forbidden``: another
    owner's bot; ``Invalid``: over a limit)."""
    foreign = [name for name in bot_names if not usable_by(session, owner, name)]
    if foreign:
        raise Forbidden(
            f"a private tournament takes your own bots and the samples only: {', '.join(foreign)}"
        )
    if format.keeps_tables and games > limits.tables:
        raise Invalid(f"a private {format.label} has at most {limits.tables} tables in play")
    if not format.keeps_tables and games > limits.games:
        raise Invalid(f"a private tournament has at most {limits.games} games")
    check_private_deadline(session, "a private tournament", deadline, limits)
    check_running_private(session, owner, limits)


def private_deadline(session: Session, limits: PrivateLimits) -> float:
    """The longest deadline an owner's private work may give a bot: the limit, and
    never more than the default competition's (what ranked play gives): a private
    match is never slower to play than a ranked one."""
    settings = session.scalar(
        select(Tournament.settings)
        .join(Competition, Competition.tournament_id == Tournament.id)
        .where(Competition.is_default.is_(True))
    )
    ranked = (settings or {}).get("deadline")
    return min(limits.deadline, ranked) if isinstance(ranked, int | float) else limits.deadline


def check_private_deadline(
    session: Session, what: str, deadline: float, limits: PrivateLimits
) -> None:
    """Refuse a deadline over :func:`private_deadline` for ``what``."""
    allowed = private_deadline(session, limits)
    if deadline > allowed:
        raise Invalid(f"{what}'s deadline is at most {allowed:g} s")


def check_running_private(session: Session, owner: Someone, limits: PrivateLimits) -> None:
    """Refuse another private tournament (or A/B test) while ``limits.running`` are on."""
    running = session.scalars(
        select(func.count())
        .select_from(Tournament)
        .where(Tournament.owner_id == owner.id, Tournament.status != TournamentStatus.DONE)
    ).one()
    if running >= limits.running:
        raise Invalid(
            f"you have {running} private tournaments or A/B tests not over yet "
            f"(at most {limits.running})"
        )


def usable_by(session: Session, owner: Someone, name: str) -> bool:
    bot = session.scalar(select(RegisteredBot).where(RegisteredBot.name == name))
    if bot is None:
        return True  # create() says it does not exist
    if teams.manages(session, owner.id, bot):
        return True
    kinds = session.scalars(select(BotVersion.kind).where(BotVersion.bot_id == bot.id)).all()
    return bot.team_id is None and bool(kinds) and all(k is BotKind.SAMPLE for k in kinds)


def check_may_run(owner: Someone | None, tournament: Tournament) -> None:
    """Only the operator (``owner`` None) or the tournament's creator starts or stops it."""
    if owner is not None and tournament.owner_id != owner.id:
        whose = "the operator's" if tournament.owner_id is None else "another owner's"
        raise Forbidden(f"tournament {tournament.name!r} is {whose}: you may not run it")


def check_submission_rate(session: Session, owner: Someone, rate: SubmissionRate) -> None:
    """``TooMany`` when the owner submitted ``rate.per_hour`` versions in the last hour,
    with the seconds until the oldest of them is an hour old."""
    window = timedelta(hours=1)
    recent = session.scalars(
        select(BotVersion.created_at)
        .join(RegisteredBot, RegisteredBot.id == BotVersion.bot_id)
        .where(teams.in_teams_of(owner.id))
        .order_by(BotVersion.created_at.desc())
        .limit(rate.per_hour)
    ).all()
    moment = now()
    inside = [at for at in recent if moment - at < window]
    if len(inside) >= rate.per_hour:
        wait = max(1, math.ceil((min(inside) + window - moment).total_seconds()))
        raise TooMany(
            f"{len(inside)} versions submitted in the last hour (at most {rate.per_hour}): "
            f"try again in {wait} s",
            retry_after=wait,
        )
