"""Scrimmages: an owner's unranked matches of one version of their bot against rivals
they choose, every match seating them all (seats rotating), played by the workers in
sandboxes as ranked matches are, after them (a private tournament of format
``scrimmage``: never on a leaderboard, within the owner's private limits).

A rival is a sample (``sample:NAME``), a bot of the owner's, or another owner's bot
whose owner lets it be chosen (``RegisteredBot.scrimmage_rival``).
"""

from __future__ import annotations

import secrets

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.base.errors import Forbidden, Invalid
from arena.base.people import Someone
from arena.engine import Ruleset
from arena.referee import RefereeSettings
from arena.store import bots, releases, rights, tournaments
from arena.store.limits import PrivateLimits
from arena.store.models import BotVersion, Owner, Tournament
from arena.tournament import formats
from sample_bots import NAMES as SAMPLE_NAMES

#: a scrimmage's name: the prefix and a random part
PREFIX = "scrimmage-"


def create(
    session: Session,
    bot: str,
    rivals: list[str],
    games: int,
    ruleset: Ruleset,
    owner: Someone | None,
    limits: PrivateLimits,
    deadline: float = 1.0,
) -> Tournament:
    """A scrimmage of ``bot`` (``BOT``, ``BOT:N``: any qualified version) against
    ``rivals``; ``owner`` None is the operator, acting for the bot's owner."""
    version = releases.qualified(session, bot)
    releases.check_owner(version.bot, owner)
    acting = owner
    if acting is None and version.bot.owner_id is not None:
        acting = session.get(Owner, version.bot.owner_id)
    if acting is None:
        raise Invalid(
            f"{version.bot.name} is the platform's own bot: scrimmages are for owners' bots"
        )
    if not rivals:
        raise Invalid("a scrimmage needs at least one rival (--against)")
    seated = [version, *(_rival(session, acting, spec) for spec in rivals)]
    twice = sorted({v.bot.name for v in seated if sum(w.bot_id == v.bot_id for w in seated) > 1})
    if twice:
        raise Invalid(f"a scrimmage seats each bot once: {', '.join(twice)} more than once")
    if games > limits.games:
        raise Invalid(f"a scrimmage plays at most {limits.games} games")
    rights.check_private_deadline(session, "a scrimmage", deadline, limits)
    rights.check_running_private(session, acting, limits)
    name = tournaments.check_new(
        session, PREFIX + secrets.token_hex(4), ruleset, len(seated), games, reveal_delay=0
    )
    return tournaments.add(
        session,
        name,
        ruleset,
        seated,
        len(seated),
        games,
        None,
        RefereeSettings(deadline=deadline),
        tournaments.Shape(format=formats.SCRIMMAGE.name, same_owner_tables=True),
        acting,
    )


def _rival(session: Session, owner: Someone, spec: str) -> BotVersion:
    if spec.startswith("sample:") and spec.removeprefix("sample:") in SAMPLE_NAMES:
        return bots.sample_version(session, spec.removeprefix("sample:"))
    version = releases.playable_by(session, spec, owner.id)
    theirs = version.bot.owner_id not in (None, owner.id)
    if theirs and not version.bot.scrimmage_rival:
        raise Forbidden(f"{version.bot.name}'s owner does not let it be a scrimmage's rival")
    return version


def of_owner(session: Session, owner: Someone, limit: int = 50) -> list[Tournament]:
    """An owner's scrimmages, the newest first."""
    return list(
        session.scalars(
            select(Tournament)
            .where(
                Tournament.owner_id == owner.id,
                Tournament.format == formats.SCRIMMAGE.name,
            )
            .order_by(Tournament.id.desc())
            .limit(limit)
        )
    )
