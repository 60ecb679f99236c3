"""Which version of a bot plays: its live version, and the owner's choice of it.

A bot has at most one live version: the one its competitions seat, the one a bare
``BOT`` names when a tournament or an A/B test is made. A submitted version goes live
once it qualifies (``AfterQualifying.LIVE``, the default), or waits, qualified, for its
owner (``STAGE``), or is gated (``GATE``): an A/B test against the live version promotes
it if it is accepted, as fishtest's tests gate a patch. An owner promotes any qualified
version, an older one too (a rollback): the version it replaces keeps its rating and
its matches in every competition, and takes its place there again if promoted back.

Versions are named ``BOT`` or ``BOT:live`` (the live one), ``BOT:latest`` (the newest
that qualified), ``BOT:N`` (version N), and ``sample:NAME`` (the sample bot NAME, as
``arena play`` names it): a rejected upload takes a number, so scripts name versions by
what they are, not by counting.
"""

from __future__ import annotations

import re

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.base.errors import Forbidden, Invalid, NotFound
from arena.base.people import Someone
from arena.base.states import AbTestStatus, VersionStatus
from arena.store import competitions, ladder
from arena.store.bots import describe_versions
from arena.store.models import AbTest, BotVersion, Competition, RegisteredBot, now

LIVE, LATEST = "live", "latest"
_SPEC = re.compile(r"^(?P<bot>[^:]+)(?::(?P<version>.+))?$")


def find(session: Session, spec: str) -> BotVersion:
    """The version ``spec`` names (any status): ``BOT``, ``BOT:live``, ``BOT:latest``,
    ``BOT:N`` or ``sample:NAME``."""
    match = _SPEC.match(spec.strip())
    if match is None:
        raise Invalid(f"{spec!r} is not BOT or BOT:VERSION")
    name, which = match["bot"], match["version"]
    if name == "sample" and which is not None and not which.isdigit() and which not in _NAMED:
        name, which = which, None
    bot = session.scalar(select(RegisteredBot).where(RegisteredBot.name == name))
    if bot is None:  # a request naming it is wrong (what it asks for may exist)
        raise Invalid(f"no bot named {name!r}")
    if which is None or which == LIVE:
        found = live(bot)
        if found is None:
            raise Invalid(f"bot {name!r} has no live version: {describe_versions(bot)}")
        return found
    if which == LATEST:
        found = latest(bot)
        if found is None:
            raise Invalid(f"bot {name!r} has no qualified version: {describe_versions(bot)}")
        return found
    if not which.isdigit():
        raise Invalid(f"{spec!r}: the version is a number, 'live' or 'latest' (BOT:2)")
    number = next((v for v in bot.versions if v.number == int(which)), None)
    if number is None:
        raise Invalid(f"bot {name!r} has no version {which} (it has: {describe_versions(bot)})")
    return number


_NAMED = (LIVE, LATEST)


def qualified(session: Session, spec: str) -> BotVersion:
    """The version ``spec`` names, which must have qualified (it may then play)."""
    version = find(session, spec)
    if version.status is not VersionStatus.READY:
        reason = f": {version.reason}" if version.reason else ""
        raise Invalid(
            f"{version.bot.name} v{version.number} never qualified ({version.status.value}{reason})"
        )
    return version


def playable_by(session: Session, spec: str, person: int | None) -> BotVersion:
    """The qualified version ``spec`` names, as ``person`` (an owner's id; None: a guest)
    may seat it: anyone the bot's live version, only its owner any other (a staged
    version is its owner's until it is promoted)."""
    version = qualified(session, spec)
    if not version.active and version.bot.owner_id not in (None, person):
        raise Forbidden(
            f"{version.bot.name} v{version.number} is not live: only its owner may seat it"
            f" (name {version.bot.name} for its live version)"
        )
    return version


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
    if version.status is not VersionStatus.READY:
        raise Invalid(f"{version.bot.name} v{version.number} has not qualified: it cannot play")
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


def promote(session: Session, spec: str, owner: Someone | None) -> tuple[BotVersion, list[str]]:
    """The owner (None: the operator) makes the version ``spec`` names live; it and the
    competitions it now plays in. Promoting the live version changes nothing."""
    version = find(session, spec)
    check_owner(version.bot, owner)
    version = qualified(session, spec)
    if version.active:
        return version, []
    return version, go_live(session, version)


def rollback(
    session: Session, bot_name: str, owner: Someone | None
) -> tuple[BotVersion, list[str]]:
    """Make the version live before the live one live again."""
    bot = session.scalar(select(RegisteredBot).where(RegisteredBot.name == bot_name))
    if bot is None:
        raise NotFound(f"no bot named {bot_name!r}")
    check_owner(bot, owner)
    target = previous(bot)
    if target is None:
        raise Invalid(f"bot {bot_name!r} has no earlier live version to go back to")
    return target, go_live(session, target)


def standing(session: Session, version: BotVersion) -> str:
    """What became of a settled version, in words, for its owner: its qualification's
    reason (a rejection's in full, with what the bot printed), then where it plays, or
    what it waits for."""
    said = version.reason or ""
    if version.status is not VersionStatus.READY:
        return version.detail or said
    if version.active:
        playing = competitions.playing_in(session, version)
        return f"{said}; now playing in {', '.join(playing)}" if playing else f"{said}; live"
    gate = session.scalar(
        select(AbTest).where(AbTest.new_version_id == version.id, AbTest.promote.is_(True))
    )
    if gate is not None and gate.status in (AbTestStatus.CREATED, AbTestStatus.RUNNING):
        return (
            f"{said}; staged: A/B test {gate.name} against v{gate.base_version.number} makes "
            "it live if it is better"
        )
    if gate is not None:
        return f"{said}; staged: its A/B test {gate.name} ended {gate.status.value}"
    if version.live_since is not None:
        return f"{said}; live earlier, replaced since"
    return f"{said}; staged: arena bot promote {version.bot.name}:{version.number} makes it live"


def check_owner(bot: RegisteredBot, owner: Someone | None) -> None:
    """An owner changes only their own bots (before anything is said of their versions);
    the operator (None), any."""
    if owner is not None and bot.owner_id != owner.id:
        raise Forbidden(f"{bot.name} is not your bot")


def set_consent(
    session: Session,
    name: str,
    owner: Someone | None,
    people: bool | None = None,
    scrimmages: bool | None = None,
) -> RegisteredBot:
    """The owner's consent for their bot: that people play it at tables, that other
    owners choose it as a scrimmage's rival (None: unchanged)."""
    bot = session.scalar(select(RegisteredBot).where(RegisteredBot.name == name))
    if bot is None:
        raise NotFound(f"no bot named {name!r}")
    check_owner(bot, owner)
    if people is not None:
        bot.people_may_play = people
    if scrimmages is not None:
        bot.scrimmage_rival = scrimmages
    return bot
