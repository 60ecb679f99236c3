"""Choosing which version of a bot plays, as use cases: promote (a rollback too),
roll back, and the owner's consent. The store (arena.store.releases) keeps the rules."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy.orm import Session

from arena.base.people import Someone
from arena.store import releases as store
from arena.store.db import Database
from arena.store.models import BotVersion, Owner


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
    return _release(db, lambda session, owner: store.promote(session, spec, owner), owner_id)


def rollback(db: Database, name: str, owner_id: int | None) -> LiveVersion:
    """Make the version live before the live one live again."""
    return _release(db, lambda session, owner: store.rollback(session, name, owner), owner_id)


def set_consent(
    db: Database,
    name: str,
    owner_id: int | None,
    people: bool | None = None,
    scrimmages: bool | None = None,
) -> None:
    """What the bot's owner allows: people at tables, other owners' scrimmages."""
    db.transaction(
        lambda session: store.set_consent(
            session, name, _owner(session, owner_id), people, scrimmages
        )
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
