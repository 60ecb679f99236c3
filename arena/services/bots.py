"""Bots as the operator registers and lists them (the CLI): a sample, an endpoint or a
file under a name, and every version with where it stands. Submissions by owners go
through arena.platform.submission."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from arena.base.states import BotKind, VersionStatus
from arena.store import bots as store
from arena.store.db import Database
from arena.store.models import BotVersion


@dataclass(frozen=True)
class VersionRow:
    """One version of a bot as a listing shows it."""

    bot: str
    number: int
    status: VersionStatus
    kind: BotKind
    target: str
    reason: str
    #: the version plays now
    active: bool
    #: when it last became live (None: never)
    live_since: datetime | None


@dataclass(frozen=True)
class Added:
    bot: str
    number: int
    kind: BotKind
    target: str
    #: False: the sample was registered under this name already (nothing changed)
    new: bool


def add(db: Database, name: str, kind: BotKind, target: str, max_matches: int | None) -> Added:
    """Register the operator's bot ``name`` (an endpoint's own limit of matches at once:
    ``max_matches``); a sample registered under this name already is left as it is."""
    if kind is BotKind.SAMPLE:
        with db.read() as session:
            there = store.existing_sample(session, name, target)
            if there is not None:
                return Added(name, there.number, kind, target, new=False)

    def work(session: Session) -> Added:
        version = store.add_bot(session, name, kind, target)
        store.limit_matches(version, max_matches)
        return Added(name, version.number, kind, version.target, new=True)

    return db.transaction(work)


def listing(db: Database) -> list[VersionRow]:
    """Every bot's versions, bots by name, versions in order."""
    with db.read() as session:
        return [
            _row(bot.name, version) for bot in store.all_bots(session) for version in bot.versions
        ]


def _row(bot: str, version: BotVersion) -> VersionRow:
    return VersionRow(
        bot, version.number, version.status, version.kind, version.target,
        version.reason or "", version.active, version.live_since,
    )  # fmt: skip
