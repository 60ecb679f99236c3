"""Scrimmages as use cases: an owner asks for unranked matches of a version of their bot
against chosen rivals (arena.store.scrimmages), and reads how each went."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from pydantic import Field
from sqlalchemy.orm import Session

from arena.base.errors import Forbidden, Invalid
from arena.base.people import Someone
from arena.engine import Ruleset
from arena.referee import RefereeSettings
from arena.services import releases, rights
from arena.services.requests import Request
from arena.store import bots, teams, tournaments
from arena.store import scrimmages as store
from arena.store.db import Database
from arena.store.limits import PrivateLimits
from arena.store.models import BotVersion, Entry, Owner, Tournament
from arena.tournament import formats
from sample_bots import NAMES as SAMPLE_NAMES


class ScrimmageRequest(Request):
    """Unranked matches of your bot (``BOT``: its live version, ``BOT:N``: any that
    qualified) against rivals you choose (``sample:NAME``, your bots, or another owner's
    that allows it), every match seating them all, seats rotating."""

    bot: str = Field(
        min_length=1, max_length=120, description="BOT (its live version) or BOT:N (any qualified)."
    )
    against: tuple[str, ...] = Field(
        min_length=1, max_length=7, description="The rivals: sample:NAME, BOT or BOT:N."
    )
    games: int = Field(default=20, ge=1, le=100_000, description="Matches to play.")
    rules: str = Field(
        default="classic", max_length=40, description="Preset: classic, pagat or russian."
    )
    deadline: float = Field(default=1.0, gt=0, le=60, description="Seconds per decision.")


@dataclass(frozen=True)
class ScrimmageLine:
    """One bot's results in a scrimmage."""

    bot: str
    version: int
    games: int
    wins: int
    mean_place: float | None
    forfeits: int


@dataclass(frozen=True)
class Scrimmage:
    """A scrimmage and its results (each match's replay: ``/matches?tournament=NAME``)."""

    name: str
    #: the owner's version, as ``BOT vN``
    bot: str
    against: list[str]
    status: str
    games: int
    played: int
    #: the bots by mean place, the best first
    results: list[ScrimmageLine]
    #: matches queued when it was created (None: read later)
    queued: int | None = None


def create(
    db: Database, request: ScrimmageRequest, owner: Someone | None, limits: PrivateLimits
) -> Scrimmage:
    """Create the scrimmage (not yet queued: the platform starts it)."""
    ruleset = Ruleset.parse(request.rules)

    def make(session: Session) -> Scrimmage:
        found = create_in(
            session,
            request.bot,
            list(request.against),
            request.games,
            ruleset,
            session.get(Owner, owner.id) if owner is not None else None,
            limits,
            request.deadline,
        )
        return described(session, found)

    return db.transaction(make)


def of_owner(session: Session, owner: Someone) -> list[Scrimmage]:
    return [described(session, found) for found in store.of_owner(session, owner)]


def described(session: Session, scrimmage: Tournament) -> Scrimmage:
    entries = sorted(scrimmage.entries, key=lambda e: e.id)  # the owner's version first
    labels = [e.version.label for e in entries]
    lines = sorted(
        (_line(entry) for entry in entries),
        key=lambda line: (line.mean_place is None, line.mean_place or 0.0),
    )
    progress = tournaments.progress(session, scrimmage)
    return Scrimmage(
        name=scrimmage.name,
        bot=labels[0],
        against=labels[1:],
        status=scrimmage.status.value,
        games=scrimmage.games,
        played=progress["done"],
        results=lines,
    )


def _line(entry: Entry) -> ScrimmageLine:
    games = entry.games
    return ScrimmageLine(
        bot=entry.version.bot.name,
        version=entry.version.number,
        games=games,
        wins=entry.wins,
        mean_place=round(entry.place_sum / games, 3) if games else None,
        forfeits=entry.forfeits,
    )


def named(db: Database, name: str) -> Scrimmage:
    """The scrimmage ``name`` as it stands."""
    with db.read() as session:
        return described(session, tournaments.get(session, name))


def create_in(
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
    releases.check_owner(session, version.bot, owner)
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
        session, store.PREFIX + secrets.token_hex(4), ruleset, len(seated), games, reveal_delay=0
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
    if spec.startswith("sample:"):
        sample = spec.removeprefix("sample:")
        if sample not in SAMPLE_NAMES:
            raise Invalid.of("bot.no_sample", target=sample, samples=", ".join(SAMPLE_NAMES))
        return bots.sample_version(session, sample)
    version = releases.playable_by(session, spec, owner.id)
    theirs = version.bot.team_id is not None and not teams.manages(session, owner.id, version.bot)
    if theirs and not version.bot.scrimmage_rival:
        raise Forbidden(f"{version.bot.name}'s owner does not let it be a scrimmage's rival")
    return version
