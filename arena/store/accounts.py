"""Accounts as the store keeps them: an owner's password hash, its browsers' sessions
(the SHA-256 of each cookie's secret), and the throttles' counts. The rules (what a
password may be, how long a session lasts, how many tries) are arena.services.accounts'."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from arena.base.errors import Conflict
from arena.store import teams
from arena.store.db import upsert
from arena.store.models import (
    AccountSession,
    ApiToken,
    AuditEntry,
    Identity,
    Owner,
    SignInAttempt,
    Throttle,
    table_of,
)
from arena.store.owners import digest, no_token


def named(session: Session, name: str) -> Owner | None:
    """The owner named ``name``, whatever its case."""
    return session.scalar(select(Owner).where(func.lower(Owner.name) == name.lower()))


def add(session: Session, name: str, password_hash: str | None) -> Owner:
    """A new account: an owner with a password (None: it signs in at a provider) and no
    API token yet."""
    if named(session, name) is not None:
        raise Conflict.of("owner.taken", name=name)
    owner = Owner(name=name, token_hash=no_token(), password_hash=password_hash)
    session.add(owner)
    session.flush()
    teams.team_of_one(session, owner)
    return owner


def open_session(
    session: Session, owner_id: int, secret: str, csrf: str, moment: datetime, lasts: timedelta
) -> AccountSession:
    """A session whose cookie holds ``secret`` (only its digest is kept)."""
    opened = AccountSession(
        secret_hash=digest(secret),
        owner_id=owner_id,
        csrf=csrf,
        created_at=moment,
        expires_at=moment + lasts,
    )
    session.add(opened)
    session.flush()
    return opened


def live_session(session: Session, secret: str, moment: datetime) -> AccountSession | None:
    """The session whose cookie holds ``secret``, if it has not ended or expired."""
    if not secret:
        return None
    return session.scalar(
        select(AccountSession).where(
            AccountSession.secret_hash == digest(secret),
            AccountSession.ended_at.is_(None),
            AccountSession.expires_at > moment,
        )
    )


def end_sessions(session: Session, owner_id: int, moment: datetime, keep: int | None = None) -> int:
    """End the owner's sessions (but ``keep``); how many were live."""
    query = update(AccountSession).where(
        AccountSession.owner_id == owner_id, AccountSession.ended_at.is_(None)
    )
    if keep is not None:
        query = query.where(AccountSession.id != keep)
    ended: int = session.execute(query.values(ended_at=moment)).rowcount  # type: ignore[attr-defined]
    return ended


def end_session(session: Session, opened: AccountSession, moment: datetime) -> None:
    opened.ended_at = moment
    session.flush()


def count(session: Session, key: str, moment: datetime, window: timedelta) -> Throttle:
    """The key's count in its window, its row locked (a new window, at 0, once the last
    one is over). Two first failures at once both count: the row is made if missing
    (INSERT … ON CONFLICT DO NOTHING), then read locked."""
    fresh = {"key": key, "window_start": moment, "count": 0}
    insert = upsert(session.get_bind().dialect, table_of(Throttle))
    session.execute(insert.values(fresh).on_conflict_do_nothing())
    found = session.get_one(Throttle, key, with_for_update=True, populate_existing=True)
    if found.window_start + window <= moment:
        found.window_start, found.count = moment, 0
    session.flush()
    return found


def forget_throttles(session: Session, before: datetime) -> None:
    """Drop windows that ended before ``before`` (so addresses seen once do not pile up)."""
    session.execute(delete(Throttle).where(Throttle.window_start < before))


def add_token(
    session: Session,
    owner_id: int,
    label: str,
    secret: str,
    scopes: list[str],
    moment: datetime,
    expires_at: datetime | None,
) -> ApiToken:
    """A named token of the owner's (only the secret's digest is kept)."""
    token = ApiToken(
        owner_id=owner_id,
        label=label,
        digest=digest(secret),
        scopes=",".join(scopes),
        created_at=moment,
        expires_at=expires_at,
    )
    session.add(token)
    session.flush()
    return token


def live_token(session: Session, secret: str, moment: datetime) -> ApiToken | None:
    """The token ``secret`` is, if it is neither revoked nor expired."""
    if not secret:
        return None
    return session.scalar(
        select(ApiToken).where(
            ApiToken.digest == digest(secret),
            ApiToken.revoked_at.is_(None),
            (ApiToken.expires_at.is_(None)) | (ApiToken.expires_at > moment),
        )
    )


def tokens_of(session: Session, owner_id: int) -> list[ApiToken]:
    """The owner's tokens, the newest first (revoked and expired ones too)."""
    return list(
        session.scalars(
            select(ApiToken).where(ApiToken.owner_id == owner_id).order_by(ApiToken.id.desc())
        )
    )


def token_of(session: Session, owner_id: int, token_id: int) -> ApiToken | None:
    found = session.get(ApiToken, token_id)
    return found if found is not None and found.owner_id == owner_id else None


def keep_attempt(session: Session, state: str, nonce: str, verifier: str, moment: datetime) -> None:
    session.add(SignInAttempt(state=state, nonce=nonce, verifier=verifier, created_at=moment))
    session.flush()


def take_attempt(session: Session, state: str, since: datetime) -> SignInAttempt | None:
    """The attempt ``state`` names, once (it is deleted), if it began after ``since``."""
    found = session.get(SignInAttempt, state, with_for_update=True)
    if found is None:
        return None
    session.delete(found)
    session.execute(delete(SignInAttempt).where(SignInAttempt.created_at < since))
    session.flush()
    return found if found.created_at >= since else None


def identified(session: Session, issuer: str, subject: str) -> Owner | None:
    """The account linked to the provider's ``subject``."""
    found = session.scalar(
        select(Identity).where(Identity.issuer == issuer, Identity.subject == subject)
    )
    return None if found is None else session.get_one(Owner, found.owner_id)


def link(session: Session, owner_id: int, issuer: str, subject: str, moment: datetime) -> None:
    session.add(Identity(issuer=issuer, subject=subject, owner_id=owner_id, created_at=moment))
    session.flush()


def record(
    session: Session, actor: str, action: str, target: str, reason: str, moment: datetime
) -> AuditEntry:
    """An operator's action, in the audit log."""
    entry = AuditEntry(at=moment, actor=actor, action=action, target=target, reason=reason)
    session.add(entry)
    session.flush()
    return entry


def audit(session: Session, limit: int) -> list[AuditEntry]:
    """The audit log, the newest first."""
    newest = select(AuditEntry).order_by(AuditEntry.id.desc()).limit(limit)
    return list(session.scalars(newest))


def find_accounts(session: Session, starting: str, limit: int) -> list[Owner]:
    """Accounts whose names start with ``starting`` (any case), by name."""
    query = (
        select(Owner)
        .where(func.lower(Owner.name).startswith(starting.lower(), autoescape=True))
        .order_by(func.lower(Owner.name))
        .limit(limit)
    )
    return list(session.scalars(query))
