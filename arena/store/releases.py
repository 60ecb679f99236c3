"""Which version of a bot plays: its live version, the newest that qualified, the
one live before (a rollback's target), and making a version live.

A bot has at most one live version: the one its competitions seat, the one a bare
``BOT`` names when a tournament or an A/B test is made. Promoted, a version takes its
bot's place in every competition that is not closed; the version it replaces keeps its
rating and its matches, and takes its place there again if promoted back. Which version
a name means, and who may promote, are the services' (arena.services.releases).
"""

from __future__ import annotations

import re

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.base.states import VersionStatus
from arena.store import competitions, ladder
from arena.store.models import BotVersion, Competition, RegisteredBot, now

LIVE, LATEST = "live", "latest"
_SPEC = re.compile(r"^(?P<bot>[^:]+)(?::(?P<version>.+))?$")


def live(bot: RegisteredBot) -> BotVersion | None:
    found = [v for v in bot.versions if v.active]
    return max(found, key=lambda v: v.number) if found else None


def latest(bot: RegisteredBot) -> BotVersion | None:
    """The newest version that qualified."""
    found = [v for v in bot.versions if v.status is VersionStatus.READY]
    return max(found, key=lambda v: v.number) if found else None


def previous(bot: RegisteredBot) -> BotVersion | None:
    """The version that was live before the live one (a rollback's target)."""
    now_live = live(bot)
    earlier = [
        v
        for v in bot.versions
        if v.live_since is not None and v is not now_live and v.status is VersionStatus.READY
    ]
    return max(earlier, key=lambda v: v.live_since or now()) if earlier else None


def go_live(session: Session, version: BotVersion) -> list[str]:
    """Make ``version`` (qualified) its bot's live version: it takes the bot's place in
    every competition the bot is in that is not closed; those competitions' names."""
    assert version.status is VersionStatus.READY, "only a qualified version goes live"
    if version.disqualified_at is not None:  # disqualified while it qualified
        return []
    for other in version.bot.versions:
        other.active = other is version
    version.live_since = now()
    session.flush()
    return competitions.on_qualified(session, version)


def first_tables(session: Session, version: BotVersion) -> list[tuple[int, str]]:
    """Seat the tables the ladders of the competitions ``version`` now plays in have
    free (a new version's first ranked matches, at once rather than at a worker's next
    pass); the (match, job) pairs to enqueue."""
    ladders = session.scalars(
        select(Competition.tournament_id).where(
            Competition.name.in_(competitions.playing_in(session, version))
        )
    ).all()
    return [job for tournament_id in ladders for job in ladder.refill_in(session, tournament_id)]
