"""Choosing which version of a bot plays, as use cases: the version a name means
(``BOT``, ``BOT:live``, ``BOT:latest``, ``BOT:N``, ``sample:NAME``), promote (a rollback
too), roll back, what became of a version in words, and the owner's consent. The store
(arena.store.releases) keeps which version is live.

A submitted version goes live once it qualifies, or waits, qualified, for its owner
(staged), or is gated: an A/B test against the live version promotes it if it is
accepted (arena.services.gates). A rejected upload takes a number too, so scripts name
versions by what they are, not by counting."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.base.errors import Forbidden, Invalid, NotFound
from arena.base.people import Someone
from arena.base.states import AbTestStatus, VersionStatus
from arena.store import competitions, teams
from arena.store import releases as store
from arena.store.bots import describe_versions
from arena.store.db import Database
from arena.store.models import AbTest, BotVersion, Owner, RegisteredBot


@dataclass(frozen=True)
class LiveVersion:
    """The version that plays now, and the competitions that seat it."""

    bot: str
    version: int
    live_since: str | None
    competitions: list[str] = field(default_factory=list)
    #: the first tables seated for it: (match id, job id) to send to the workers
    jobs: list[tuple[int, str]] = field(default_factory=list, repr=False, compare=False)

    def said(self) -> str:
        where = f": now playing in {', '.join(self.competitions)}" if self.competitions else ""
        return f"{self.bot} v{self.version} is live{where}"


Change = Callable[[Session, Someone | None], tuple[BotVersion, list[str]]]


def promote(db: Database, spec: str, owner_id: int | None) -> LiveVersion:
    """Make the qualified version ``spec`` (``BOT:N``, ``BOT:latest``) live, as the
    owner ``owner_id`` (None: the operator)."""
    return _release(db, lambda session, owner: promote_in(session, spec, owner), owner_id)


def rollback(db: Database, name: str, owner_id: int | None) -> LiveVersion:
    """Make the version live before the live one live again."""
    return _release(db, lambda session, owner: rollback_in(session, name, owner), owner_id)


def set_consent(
    db: Database,
    name: str,
    owner_id: int | None,
    people: bool | None = None,
    scrimmages: bool | None = None,
) -> None:
    """What the bot's owner allows: people at tables, other owners' scrimmages."""
    db.transaction(
        lambda session: set_consent_in(session, name, _owner(session, owner_id), people, scrimmages)
    )


def _release(db: Database, change: Change, owner_id: int | None) -> LiveVersion:
    def run(session: Session) -> LiveVersion:
        version, playing = change(session, _owner(session, owner_id))
        return LiveVersion(
            bot=version.bot.name,
            version=version.number,
            live_since=version.live_since.isoformat() if version.live_since else None,
            competitions=playing,
            jobs=store.first_tables(session, version),
        )

    return db.transaction(run)


def _owner(session: Session, owner_id: int | None) -> Someone | None:
    return session.get(Owner, owner_id) if owner_id is not None else None


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
        found = store.live(bot)
        if found is None:
            raise Invalid(f"bot {name!r} has no live version: {describe_versions(bot)}")
        return found
    if which == LATEST:
        found = store.latest(bot)
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
    if version.disqualified_at is not None:
        raise Forbidden.of(
            "version.disqualified",
            name=version.bot.name,
            number=version.number,
            reason=version.disqualified_reason,
        )
    if version.status is not VersionStatus.READY:
        reason = f": {version.reason}" if version.reason else ""
        raise Invalid(
            f"{version.bot.name} v{version.number} never qualified ({version.status.value}{reason})"
        )
    return version


def playable_by(session: Session, spec: str, person: int | None) -> BotVersion:
    """The qualified version ``spec`` names, as ``person`` (an owner's id; None: a guest)
    may seat it: anyone the bot's live version, only its team any other (a staged
    version is its team's until it is promoted)."""
    version = qualified(session, spec)
    bot = version.bot
    theirs = bot.team_id is None or (person is not None and teams.manages(session, person, bot))
    if not version.active and not theirs:
        raise Forbidden(
            f"{version.bot.name} v{version.number} is not live: only its team may seat it"
            f" (name {version.bot.name} for its live version)"
        )
    return version


def promote_in(session: Session, spec: str, owner: Someone | None) -> tuple[BotVersion, list[str]]:
    """The owner (None: the operator) makes the version ``spec`` names live; it and the
    competitions it now plays in. Promoting the live version changes nothing."""
    version = find(session, spec)
    check_owner(session, version.bot, owner)
    version = qualified(session, spec)
    if version.active:
        return version, []
    return version, store.go_live(session, version)


def rollback_in(
    session: Session, bot_name: str, owner: Someone | None
) -> tuple[BotVersion, list[str]]:
    """Make the version live before the live one live again."""
    bot = session.scalar(select(RegisteredBot).where(RegisteredBot.name == bot_name))
    if bot is None:
        raise NotFound(f"no bot named {bot_name!r}")
    check_owner(session, bot, owner)
    target = store.previous(bot)
    if target is None:
        raise Invalid(f"bot {bot_name!r} has no earlier live version to go back to")
    return target, store.go_live(session, target)


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


def check_owner(session: Session, bot: RegisteredBot, owner: Someone | None) -> None:
    """An owner changes only the bots of their teams (before anything is said of their
    versions); the operator (None), any."""
    if owner is not None and not teams.manages(session, owner.id, bot):
        raise Forbidden(f"{bot.name} is not a bot of your teams")


def set_consent_in(
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
    check_owner(session, bot, owner)
    if people is not None:
        bot.people_may_play = people
    if scrimmages is not None:
        bot.scrimmage_rival = scrimmages
    return bot
