"""Bots and their versions."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

import sample_bots
from arena.base.endpoints import EndpointError, parse_endpoint
from arena.base.errors import Conflict, Forbidden, Invalid, NotFound, Refused
from arena.base.names import check_name
from arena.base.states import BotKind, VersionStatus
from arena.base.words import said
from arena.store import artifacts, teams
from arena.store.models import BotVersion, RegisteredBot, now

__all__ = ["Refused", "active_version", "add_bot", "add_version", "check_name"]


def parse_target(session: Session, kind: BotKind, target: str) -> str:
    """Validate a version's target; return it canonical. An upload (a file or a folder
    path) is stored in the database and named by its digest (``sha256:...``)."""
    if kind is BotKind.PATH:
        digest = artifacts.digest_in(target)
        if digest is not None:
            artifacts.fetch(session, digest)  # it exists, intact
            return target
        return artifacts.store(session, Path(target))
    if kind is BotKind.SAMPLE:
        if target not in sample_bots.NAMES:
            raise Invalid.of("bot.no_sample", target=target, samples=", ".join(sample_bots.NAMES))
        return target
    try:
        parse_endpoint(target)
    except EndpointError as error:
        raise Invalid(str(error)) from None
    return target


def add_bot(
    session: Session,
    name: str,
    kind: BotKind,
    target: str,
    owner_id: int | None = None,
    team_id: int | None = None,
) -> BotVersion:
    """A new bot with its first version, in team ``team_id`` (by default its owner's own
    team; the operator's bots are in none)."""
    name = check_name(name, "bot")
    taken = session.scalar(
        select(RegisteredBot.name).where(func.lower(RegisteredBot.name) == name.lower())
    )
    if taken is not None:
        if taken == name:
            raise Conflict.of("name.taken", what="bot", name=name)
        raise Conflict.of("name.taken_folded", what="bot", name=name, taken=taken)
    if team_id is None and owner_id is not None:
        own = teams.own_team(session, owner_id)
        team_id = own.id if own is not None else None
    bot = RegisteredBot(name=name, owner_id=owner_id, team_id=team_id)
    version = BotVersion(
        bot=bot, number=1, kind=kind, target=parse_target(session, kind, target), live_since=now()
    )
    session.add_all([bot, version])
    session.flush()
    return version


#: the most matches at once an endpoint may ask for
MAX_MATCHES_LIMIT = 10_000
#: matches at once (seats, over every worker) for an endpoint that set no limit and
#: announced none: what a synchronous gRPC server with 32 threads serves (each stream
#: holds a thread; a stream waiting for one misses its start deadline)
DEFAULT_ENDPOINT_MATCHES = 32


def limit_matches(version: BotVersion, max_matches: int | None) -> None:
    """Give an endpoint version its own limit of matches at once (None: no limit)."""
    if max_matches is None:
        return
    if version.kind is not BotKind.ENDPOINT:
        raise Invalid.of("bot.max_matches_kind")
    if not 1 <= max_matches <= MAX_MATCHES_LIMIT:
        raise Invalid.of("bot.max_matches_range", most=MAX_MATCHES_LIMIT, asked=max_matches)
    version.max_matches = max_matches


def note_announced(session: Session, announced: dict[int, int | None]) -> None:
    """Keep what endpoint versions announced in their Hellos (by version id: matches at
    once, None for none said); a claim then seats them in no more."""
    for version_id, value in announced.items():
        kept = None if value is None else min(value, MAX_MATCHES_LIMIT)
        session.execute(
            update(BotVersion).where(BotVersion.id == version_id).values(announced_matches=kept)
        )


def existing_sample(session: Session, name: str, sample: str) -> BotVersion | None:
    """The active version of the operator's bot ``name`` if that bot is the sample bot
    ``sample``; None if there is no such bot or ``name`` is another bot."""
    bot = session.scalar(select(RegisteredBot).where(RegisteredBot.name == name))
    if bot is None or bot.owner_id is not None:
        return None
    found = [
        v for v in bot.versions if v.active and v.kind is BotKind.SAMPLE and v.target == sample
    ]
    return max(found, key=lambda v: v.number) if found else None


def register_sample(session: Session, name: str, sample: str | None = None) -> BotVersion:
    """The operator's bot ``name`` playing sample ``sample`` (default: the same name),
    registered now if it is not yet."""
    sample = sample or name
    return existing_sample(session, name, sample) or add_bot(session, name, BotKind.SAMPLE, sample)


def sample_version(session: Session, sample: str) -> BotVersion:
    """The operator's bot for sample ``sample``, registered now if it is not yet (under
    ``sample.NAME`` if another bot took the name)."""
    bot = session.scalar(select(RegisteredBot.id).where(RegisteredBot.name == sample))
    found = existing_sample(session, sample, sample)
    if found is not None or bot is None:
        return found or register_sample(session, sample)
    return register_sample(session, f"sample.{sample}", sample)


def active_version(session: Session, name: str) -> BotVersion:
    version = session.scalar(
        select(BotVersion)
        .join(RegisteredBot)
        .where(RegisteredBot.name == name, BotVersion.active.is_(True))
        .order_by(BotVersion.number.desc())
    )
    if version is None:
        bot = session.scalar(select(RegisteredBot).where(RegisteredBot.name == name))
        if bot is None:
            raise NotFound.of("name.missing", what="bot", name=name)
        raise Invalid.of("bot.cannot_play", name=name, versions=describe_versions(bot))
    return version


def describe_versions(bot: RegisteredBot) -> str:
    """Each version's number and status, the live one marked: ``v1 ready (live); v2 ...``."""
    return "; ".join(
        f"v{v.number} {v.status.value}"
        + (" (live)" if v.active else "")
        + (f" ({v.reason})" if v.reason and v.status is VersionStatus.REJECTED else "")
        for v in sorted(bot.versions, key=lambda v: v.number)
    ) or said("versions.none")


def all_bots(session: Session) -> list[RegisteredBot]:
    return list(session.scalars(select(RegisteredBot).order_by(RegisteredBot.name)))


def check_manages(session: Session, bot: RegisteredBot, owner_id: int | None) -> None:
    """Refuse unless ``owner_id`` is in ``bot``'s team (None: the operator, who changes
    only the bots in no team)."""
    if bot.team_id is None:
        if owner_id is not None:
            raise Forbidden.of("bot.operators", name=bot.name)
    elif owner_id is None:
        team = bot.team.name if bot.team is not None else ""
        raise Forbidden.of("bot.needs_member", name=bot.name, team=team)
    elif not teams.manages(session, owner_id, bot):
        raise Forbidden.of("bot.anothers", name=bot.name)


def add_version(
    session: Session,
    name: str,
    kind: BotKind,
    target: str,
    owner_id: int | None = None,
    *,
    retire_others: bool = True,
) -> BotVersion:
    """A new version of a bot. With ``retire_others`` (the default) it becomes the active
    one and the earlier versions stop being scheduled; otherwise it starts inactive."""
    bot = session.scalar(select(RegisteredBot).where(RegisteredBot.name == name))
    if bot is None:
        raise NotFound.of("name.missing", what="bot", name=name)
    check_manages(session, bot, owner_id)
    if bot.disqualified_at is not None:
        raise Forbidden.of("bot.disqualified", name=bot.name, reason=bot.disqualified_reason)
    if retire_others:
        for version in bot.versions:
            version.active = False
    number = max((v.number for v in bot.versions), default=0) + 1
    target = parse_target(session, kind, target)
    version = BotVersion(
        bot=bot,
        number=number,
        kind=kind,
        target=target,
        active=retire_others,
        live_since=now() if retire_others else None,
    )
    session.add(version)
    session.flush()
    return version
