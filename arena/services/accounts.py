"""Accounts: people sign up with a name and a password and sign in from a browser.

A password is hashed with Argon2id (argon2-cffi: its parameters and salt are in the
stored string, and a hash made with older parameters is made again at the next sign-in).
It has 10 to 256 characters and is none of the 30,000 most common passwords (zxcvbn's
list), nor the account's name. A signed-in browser holds a random secret in a cookie; the
database keeps its SHA-256, and the session's CSRF token, which a cookie-authenticated
write must carry. Sign-ins are throttled per account and per address, and sign-ups per
address, before any password is hashed: nobody guesses passwords or spends the site's
CPU on Argon2 faster than the limits (``Throttles``). Changing a password ends every other
session.
"""

from __future__ import annotations

import math
import re
import secrets
from collections.abc import Callable
from dataclasses import astuple, dataclass
from datetime import datetime, timedelta
from functools import cache
from typing import Any

from argon2 import Parameters, PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy.orm import Session

from arena.base.errors import Conflict, Forbidden, Invalid, TooMany, Unauthorized
from arena.base.people import OPERATOR, SCOPES, Caller
from arena.store import accounts as store
from arena.store.bots import check_name
from arena.store.db import Database
from arena.store.models import Owner, Throttle, now

MIN_PASSWORD, MAX_PASSWORD = 10, 256
#: a session lasts this long after sign-in
SESSION_LASTS = timedelta(days=30)

Clock = Callable[[], datetime]
#: the time now, in UTC (the default clock)
WALL_CLOCK: Clock = now


@dataclass(frozen=True)
class Limit:
    """At most ``most`` in each ``window``."""

    most: int
    window: timedelta


@dataclass(frozen=True)
class Throttles:
    """How many failed sign-ins an account and an address may have, and how many
    sign-ups an address may make, in a window."""

    per_account: Limit = Limit(5, timedelta(minutes=15))
    per_address: Limit = Limit(20, timedelta(minutes=15))
    sign_ups: Limit = Limit(5, timedelta(hours=1))


@dataclass(frozen=True)
class Ticket:
    """A signed-in browser: the cookie's secret (never stored) and the CSRF token."""

    caller: Caller
    secret: str
    csrf: str
    expires_at: datetime


@dataclass(frozen=True)
class Browser:
    """Who a session cookie signs in, and the CSRF token its writes must carry."""

    caller: Caller
    csrf: str
    session_id: int


#: verifies any Argon2 hash: a hash names its own cost
_VERIFIER = PasswordHasher()


def _hasher(hashing: Parameters) -> PasswordHasher:
    return PasswordHasher.from_parameters(hashing)


@cache
def _common() -> frozenset[str]:
    from zxcvbn.frequency_lists import FREQUENCY_LISTS

    return frozenset(FREQUENCY_LISTS["passwords"])


def check_password(name: str, password: str) -> None:
    """Refuse a password too short, too long, common, or the account's name."""
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise Invalid(f"a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters")
    folded = password.casefold()
    if folded in _common():
        raise Invalid("this password is one of the most common ones: choose another")
    if folded == name.casefold():
        raise Invalid("a password is not the account's name")


def sign_up(
    db: Database,
    name: str,
    password: str,
    address: str,
    clock: Clock = now,
    throttles: Throttles = Throttles(),
    *,
    hashing: Parameters,
) -> Ticket:
    """A new account, signed in (``address``: where the request came from; ``hashing``:
    what its password's hash costs, the platform's ``Settings.password_hashing``)."""
    name = check_name(name, "account")
    check_password(name, password)
    moment = clock()
    _spend(db, f"sign-up:{address}", throttles.sign_ups, moment)
    with db.read() as session:  # a taken name costs no hashing (store.add checks again)
        if store.named(session, name) is not None:
            raise Conflict.of("owner.taken", name=name)
    hashed = _hasher(hashing).hash(password)

    def make(session: Session) -> Ticket:
        owner = store.add(session, name, hashed)
        return _open(session, owner, moment)

    return db.transaction(make)


def sign_in(
    db: Database,
    name: str,
    password: str,
    address: str,
    clock: Clock = now,
    throttles: Throttles = Throttles(),
    *,
    hashing: Parameters,
) -> Ticket:
    """A new session for the account, if the password is its own. Refused (``TooMany``)
    before the password is looked at once the account or the address failed too often.
    A hash made at another cost than ``hashing`` is made again at this cost."""
    moment = clock()
    keys = {f"sign-in:{name.strip().casefold()}": throttles.per_account}
    keys[f"sign-in-from:{address}"] = throttles.per_address
    for key, limit in keys.items():
        _check(db, key, limit, moment)
    with db.read() as session:
        owner = store.named(session, name.strip())
        stored = owner.password_hash if owner is not None else None
    if not _verified(stored or _nobody(hashing), password) or owner is None or stored is None:
        for key, limit in keys.items():
            _spend(db, key, limit, moment)
        raise Unauthorized("no account has this name and password")
    if owner.suspended_at is not None:
        raise Forbidden(f"this account is suspended: {owner.suspended_reason}")
    owner_id = owner.id

    def open_it(session: Session) -> Ticket:
        found = session.get_one(Owner, owner_id)
        if _hasher(hashing).check_needs_rehash(stored):
            found.password_hash = _hasher(hashing).hash(password)
        return _open(session, found, moment)

    return db.transaction(open_it)


def _verified(stored: str, password: str) -> bool:
    """Whether ``password`` is the one hashed in ``stored`` (at the cost the hash names)."""
    try:
        return _VERIFIER.verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False


def _nobody(hashing: Parameters) -> str:
    """Verified against when the name is nobody's: an unknown name takes the time a
    wrong password takes (no telling which names exist by the clock)."""
    return _nobody_at(astuple(hashing))


@cache
def _nobody_at(hashing: tuple[Any, ...]) -> str:
    """One hash a cost (``Parameters`` as a tuple: the dataclass is not hashable)."""
    return _hasher(Parameters(*hashing)).hash(secrets.token_urlsafe(16))


def browser(session: Session, secret: str, clock: Clock = now) -> Browser | None:
    """Who the session cookie ``secret`` signs in (None: nobody: unknown, over, expired)."""
    found = store.live_session(session, secret, clock())
    caller = None if found is None else acting(session.get_one(Owner, found.owner_id))
    return None if caller is None or found is None else Browser(caller, found.csrf, found.id)


def acting(owner: Owner, scopes: frozenset[str] = frozenset(SCOPES)) -> Caller | None:
    """The caller an account's session or token makes, with what it may do; None while
    the account is suspended (no session or token of it works)."""
    if owner.suspended_at is not None:
        return None
    return Caller(owner.id, owner.name, scopes, operator=owner.role == OPERATOR)


def sign_out(db: Database, secret: str, clock: Clock = now) -> None:
    """End the session the cookie ``secret`` holds (nothing if it is over already)."""

    def end(session: Session) -> None:
        found = store.live_session(session, secret, clock())
        if found is not None:
            store.end_session(session, found, clock())

    db.transaction(end)


def change_password(
    db: Database,
    caller: Caller,
    current: str,
    new: str,
    keep: int | None,
    clock: Clock = now,
    *,
    hashing: Parameters,
) -> int:
    """A new password for the caller's account, which must give its current one; every
    session but ``keep`` (the browser asking) ends. How many ended."""
    with db.read() as session:
        stored = session.get_one(Owner, caller.id).password_hash
    if stored is None or not _verified(stored, current):
        raise Forbidden("the current password is not this account's")
    check_password(caller.name, new)
    hashed = _hasher(hashing).hash(new)

    def change(session: Session) -> int:
        session.get_one(Owner, caller.id).password_hash = hashed
        return store.end_sessions(session, caller.id, clock(), keep=keep)

    return db.transaction(change)


def _open(session: Session, owner: Owner, moment: datetime) -> Ticket:
    secret, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    opened = store.open_session(session, owner.id, secret, csrf, moment, SESSION_LASTS)
    return Ticket(Caller(owner.id, owner.name), secret, csrf, opened.expires_at)


def _check(db: Database, key: str, limit: Limit, moment: datetime) -> None:
    """``TooMany`` if ``key`` is at its limit in this window (nothing is counted)."""
    with db.read() as session:
        found = session.get(Throttle, key)
        if found is None or found.window_start + limit.window <= moment:
            return
        _refuse_over(found.count, found.window_start, limit, moment)


def _spend(db: Database, key: str, limit: Limit, moment: datetime) -> None:
    """Count one for ``key``; ``TooMany`` (nothing counted) if it is at its limit."""

    def spend(session: Session) -> None:
        found = store.count(session, key, moment, limit.window)
        _refuse_over(found.count, found.window_start, limit, moment)
        found.count += 1
        store.forget_throttles(session, moment - timedelta(days=1))

    db.transaction(spend)


def _refuse_over(count: int, start: datetime, limit: Limit, moment: datetime) -> None:
    if count >= limit.most:
        wait = max(1, math.ceil((start + limit.window - moment).total_seconds()))
        raise TooMany(f"too many tries: try again in {wait} s", retry_after=wait)


#: how long a browser may stay at the provider before its sign-in is over
ATTEMPT_LASTS = timedelta(minutes=10)


def keep_attempt(db: Database, state: str, nonce: str, verifier: str, clock: Clock = now) -> None:
    """Keep what checks the browser's return from the provider."""
    db.transaction(lambda session: store.keep_attempt(session, state, nonce, verifier, clock()))


def take_attempt(db: Database, state: str, clock: Clock = now) -> tuple[str, str]:
    """The nonce and the PKCE verifier of the attempt ``state`` names (once); ``Forbidden``
    when there is none (used, over, or never begun here)."""
    found = db.transaction(
        lambda session: store.take_attempt(session, state, clock() - ATTEMPT_LASTS)
    )
    if found is None:
        raise Forbidden("this sign-in is over or was never begun here: sign in again")
    return found.nonce, found.verifier


def sign_in_with(
    db: Database, issuer: str, subject: str, username: str, clock: Clock = now
) -> Ticket:
    """A session for the account the provider's ``subject`` is linked to; the first
    time, a new account (named as the person is there, or that name and a number)."""
    moment = clock()

    def enter(session: Session) -> Ticket:
        owner = store.identified(session, issuer, subject)
        if owner is None:
            owner = store.add(session, _free_name(session, username), None)
            store.link(session, owner.id, issuer, subject, moment)
        return _open(session, owner, moment)

    return db.transaction(enter)


def _free_name(session: Session, wanted: str) -> str:
    """A valid account name no one has: ``wanted`` made valid (its other characters a
    '-', none at either end), then numbered."""
    name = re.sub(r"[^A-Za-z0-9._-]", "-", wanted)[:90].strip(".-_") or "person"
    if store.named(session, name) is None:
        return name
    return next(
        f"{name}-{n}" for n in range(2, 10_000) if store.named(session, f"{name}-{n}") is None
    )
