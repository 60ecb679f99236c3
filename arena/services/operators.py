"""The operator's moderation, with an audit log: who acted, what they did, on what, when
and why. An account gets the operator's role from the command line (``arena operator
grant``); an operator suspends an account (its sessions end, its tokens and its password
stop working) with a reason, and lifts it. Every such action is in the log, which the
API (``GET /api/v1/admin/audit``) and ``arena audit`` show."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.base.errors import Conflict, Invalid, NotFound
from arena.base.people import ROLES
from arena.services import releases, teams
from arena.services.accounts import WALL_CLOCK, Clock
from arena.services.teams import TeamPublic
from arena.services.views.bots import version_state
from arena.store import accounts as store
from arena.store import moderation
from arena.store.db import Database
from arena.store.models import Owner, RegisteredBot, Team

#: who acts when the command line or the operator's token does
PLATFORM_OPERATOR = "operator"
MAX_REASON = 500


@dataclass(frozen=True)
class AuditRow:
    at: str
    actor: str
    action: str
    target: str
    reason: str


@dataclass(frozen=True)
class AccountState:
    name: str
    role: str
    suspended: bool
    reason: str | None


def grant(db: Database, name: str, role: str, actor: str = PLATFORM_OPERATOR) -> AccountState:
    """Give the account ``name`` the role ``role`` (``operator``, or ``owner`` again)."""
    if role not in ROLES:
        raise Invalid(f"unknown role {role!r}: expected {' or '.join(ROLES)}")

    def change(session: Session) -> AccountState:
        owner = _account(session, name)
        owner.role = role
        store.record(session, actor, f"role {role}", owner.name, "", WALL_CLOCK())
        return _state(owner)

    return db.transaction(change)


def suspend(
    db: Database, name: str, reason: str, actor: str = PLATFORM_OPERATOR, clock: Clock = WALL_CLOCK
) -> AccountState:
    """Suspend the account ``name``: every session ends, no token or password works."""

    def suspended(session: Session, owner: Owner, moment: datetime) -> None:
        if owner.suspended_at is not None:
            raise Conflict(f"{owner.name} is suspended already")
        owner.suspended_at, owner.suspended_reason = moment, reason
        store.end_sessions(session, owner.id, moment)

    return _moderate(db, name, "suspend", reason, actor, clock, suspended)


def lift(
    db: Database, name: str, reason: str, actor: str = PLATFORM_OPERATOR, clock: Clock = WALL_CLOCK
) -> AccountState:
    """Lift the account's suspension (its tokens work again; it signs in again)."""

    def lifted(session: Session, owner: Owner, moment: datetime) -> None:
        if owner.suspended_at is None:
            raise Conflict(f"{owner.name} is not suspended")
        owner.suspended_at = owner.suspended_reason = None

    return _moderate(db, name, "lift suspension", reason, actor, clock, lifted)


def _moderate(
    db: Database,
    name: str,
    action: str,
    reason: str,
    actor: str,
    clock: Clock,
    change: Callable[[Session, Owner, datetime], None],
) -> AccountState:
    """``change`` the account ``name``, and log it with its reason, in one transaction."""
    reason = _reason(reason)

    def moderate(session: Session) -> AccountState:
        owner = _account(session, name)
        moment = clock()
        change(session, owner, moment)
        store.record(session, actor, action, owner.name, reason, moment)
        return _state(owner)

    return db.transaction(moderate)


@dataclass(frozen=True)
class Disqualified:
    #: ``BOT`` or ``BOT vN``
    target: str
    reason: str


@dataclass(frozen=True)
class Voided:
    match: int
    tournament: str
    reason: str


def disqualify(
    db: Database, spec: str, reason: str, actor: str = PLATFORM_OPERATOR, clock: Clock = WALL_CLOCK
) -> Disqualified:
    """Disqualify a bot (``BOT``: every version, and no new one) or one version
    (``BOT:N``): off every leaderboard at once, at no new table; the reason is shown to
    its team."""
    reason = _reason(reason)

    def disqualified(session: Session) -> Disqualified:
        moment = clock()
        name, _, number = spec.partition(":")
        bot = session.scalar(select(RegisteredBot).where(RegisteredBot.name == name))
        if bot is None:
            raise NotFound(f"no bot named {name!r}")
        if number:
            version = releases.find(session, spec)
            moderation.disqualify_version(session, version, reason, moment)
            target = f"{bot.name} v{version.number}"
        else:
            moderation.disqualify_bot(session, bot, reason, moment)
            target = bot.name
        store.record(session, actor, "disqualify", target, reason, moment)
        return Disqualified(target, reason)

    return db.transaction(disqualified)


def void(
    db: Database,
    match_id: int,
    reason: str,
    actor: str = PLATFORM_OPERATOR,
    clock: Clock = WALL_CLOCK,
) -> Voided:
    """Void a recorded match: its result leaves the ratings (recomputed in order)."""
    reason = _reason(reason)

    def voided(session: Session) -> Voided:
        moment = clock()
        tournament = moderation.void(session, match_id, reason, moment)
        store.record(session, actor, "void match", f"match {match_id}", reason, moment)
        return Voided(match_id, tournament.name, reason)

    return db.transaction(voided)


@dataclass(frozen=True)
class FoundVersion:
    number: int
    state: str
    disqualified_reason: str | None


@dataclass(frozen=True)
class FoundBot:
    name: str
    team: str | None
    disqualified_reason: str | None
    versions: list[FoundVersion]


def find_bots(session: Session, starting: str = "", limit: int = 50) -> list[FoundBot]:
    """The bots whose names start with ``starting`` (any case), with their team and
    versions, for the console."""
    found = session.scalars(
        select(RegisteredBot)
        .where(func.lower(RegisteredBot.name).startswith(starting.lower(), autoescape=True))
        .order_by(RegisteredBot.name)
        .limit(limit)
    )
    return [
        FoundBot(
            bot.name,
            bot.team.name if bot.team is not None else None,
            bot.disqualified_reason,
            [FoundVersion(v.number, version_state(v), v.disqualified_reason) for v in bot.versions],
        )
        for bot in found
    ]


def find_teams(session: Session, starting: str = "", limit: int = 50) -> list[TeamPublic]:
    """The teams whose names start with ``starting`` (any case), with members and bots."""
    found = session.scalars(
        select(Team)
        .where(func.lower(Team.name).startswith(starting.lower(), autoescape=True))
        .order_by(Team.name)
        .limit(limit)
    )
    return [teams.show(session, team.name) for team in found]


def accounts(session: Session, starting: str = "", limit: int = 50) -> list[AccountState]:
    """The accounts whose names start with ``starting`` (any case), by name."""
    return [_state(owner) for owner in store.find_accounts(session, starting, limit)]


def audit_log(session: Session, limit: int = 200) -> list[AuditRow]:
    return [
        AuditRow(entry.at.isoformat(), entry.actor, entry.action, entry.target, entry.reason)
        for entry in store.audit(session, limit)
    ]


def _account(session: Session, name: str) -> Owner:
    found = store.named(session, name)
    if found is None:
        raise NotFound(f"no account named {name!r}")
    return found


def _reason(reason: str) -> str:
    reason = reason.strip()
    if not 1 <= len(reason) <= MAX_REASON:
        raise Invalid(f"a reason, of 1 to {MAX_REASON} characters, is said for the record")
    return reason


def _state(owner: Owner) -> AccountState:
    return AccountState(
        owner.name, owner.role, owner.suspended_at is not None, owner.suspended_reason
    )
