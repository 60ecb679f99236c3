"""An account's API tokens: several, each named, with the scopes it may use (``read``,
``submit``, ``manage``) and an optional expiry; shown once when made, kept as a SHA-256
only, listed without their secrets and revoked one by one. The token an operator's
``arena owner add`` printed keeps working with every scope."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from pydantic import Field, field_validator
from sqlalchemy.orm import Session

from arena.base.errors import NotFound
from arena.base.people import SCOPES, Caller
from arena.services.accounts import WALL_CLOCK, Clock, acting
from arena.services.requests import Request
from arena.store import accounts as store
from arena.store import owners as owner_store
from arena.store.db import Database
from arena.store.models import ApiToken, Owner


class TokenRequest(Request):
    """A new token as its account asks for it."""

    label: str = Field(min_length=1, max_length=100, description="What the token is for.")
    scopes: list[Literal["read", "submit", "manage"]] = Field(
        min_length=1, max_length=3, description=f"What it may do: {', '.join(SCOPES)}."
    )
    days: int | None = Field(
        default=None, ge=1, le=3650, description="Days it works (none: until revoked)."
    )

    @field_validator("scopes")
    @classmethod
    def _once_each(cls, scopes: list[str]) -> list[str]:
        return sorted(set(scopes), key=SCOPES.index)


@dataclass(frozen=True)
class Issued:
    """A token just made: its secret, shown this once."""

    id: int
    token: str
    label: str
    scopes: list[str]
    expires_at: str | None


@dataclass(frozen=True)
class TokenRow:
    """A token as its account lists it (never its secret)."""

    id: int
    label: str
    scopes: list[str]
    created_at: str
    expires_at: str | None
    #: live, revoked or expired
    state: str


def issue(db: Database, owner: Caller, asked: TokenRequest, clock: Clock = WALL_CLOCK) -> Issued:
    """A new token of ``owner``'s."""
    secret = f"arena_{secrets.token_urlsafe(32)}"
    moment = clock()
    until = moment + timedelta(days=asked.days) if asked.days else None

    def make(session: Session) -> Issued:
        scopes: list[str] = list(asked.scopes)
        made = store.add_token(session, owner.id, asked.label, secret, scopes, moment, until)
        return Issued(made.id, secret, made.label, scopes, _when(made.expires_at))

    return db.transaction(make)


def listing(session: Session, owner: Caller, clock: Clock = WALL_CLOCK) -> list[TokenRow]:
    moment = clock()
    return [_row(token, moment) for token in store.tokens_of(session, owner.id)]


def revoke(db: Database, owner: Caller, token_id: int, clock: Clock = WALL_CLOCK) -> None:
    """The token stops working at once (``NotFound`` if it is not ``owner``'s)."""

    def end(session: Session) -> None:
        found = store.token_of(session, owner.id, token_id)
        if found is None:
            raise NotFound(f"you have no token {token_id}")
        found.revoked_at = found.revoked_at or clock()

    db.transaction(end)


def caller(session: Session, secret: str, clock: Clock = WALL_CLOCK) -> Caller | None:
    """Whose token ``secret`` is, with what it may do (None: nobody's, or over)."""
    legacy = owner_store.authenticate(session, secret)
    if legacy is not None:
        return acting(legacy)
    found = store.live_token(session, secret, clock())
    if found is None:
        return None
    return acting(session.get_one(Owner, found.owner_id), frozenset(found.scopes.split(",")))


def _row(token: ApiToken, moment: datetime) -> TokenRow:
    if token.revoked_at is not None:
        state = "revoked"
    elif token.expires_at is not None and token.expires_at <= moment:
        state = "expired"
    else:
        state = "live"
    return TokenRow(
        token.id,
        token.label,
        token.scopes.split(","),
        token.created_at.isoformat(),
        _when(token.expires_at),
        state,
    )


def _when(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None
