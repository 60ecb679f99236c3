"""Owners and their API tokens (only a SHA-256 of each token is stored)."""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.base.errors import Conflict, Invalid, NotFound
from arena.store import teams
from arena.store.models import Owner, RegisteredBot

#: a revoked owner's stored "digest": never the SHA-256 of any token
REVOKED = "revoked:"


def digest(secret: str) -> str:
    """The SHA-256 kept of a token or a session's secret (random: no salt needed)."""
    return hashlib.sha256(secret.encode()).hexdigest()


def add_owner(session: Session, name: str) -> tuple[Owner, str]:
    """A new owner and its token (shown once; only its digest is kept)."""
    name = name.strip()
    if not name or len(name) > 100:
        raise Invalid.of("owner.name_length")
    if session.scalar(select(Owner).where(func.lower(Owner.name) == name.lower())) is not None:
        raise Conflict.of("owner.taken", name=name)
    token = _new_token()
    owner = Owner(name=name, token_hash=digest(token))
    session.add(owner)
    session.flush()
    teams.team_of_one(session, owner)
    return owner, token


def _new_token() -> str:
    return f"arena_{secrets.token_urlsafe(32)}"


def get(session: Session, name: str) -> Owner:
    owner = session.scalar(select(Owner).where(Owner.name == name))
    if owner is None:
        raise NotFound.of("name.missing", what="owner", name=name)
    return owner


def rotate_token(session: Session, owner: Owner) -> str:
    """A new token for ``owner``; the old one stops working at once."""
    token = _new_token()
    owner.token_hash = digest(token)
    session.flush()
    return token


def revoke_token(session: Session, owner: Owner) -> None:
    """No token works for ``owner`` any more (until one is rotated in)."""
    owner.token_hash = no_token()
    session.flush()


def no_token() -> str:
    """The stored "digest" of an owner without a working token: never any token's."""
    return f"{REVOKED}{secrets.token_hex(16)}"


def revoked(owner: Owner) -> bool:
    return owner.token_hash.startswith(REVOKED)


def describe(session: Session, owner: Owner) -> dict[str, Any]:
    """What an owner may see of itself (never a token)."""
    bots = session.scalars(
        select(RegisteredBot.name).where(teams.in_teams_of(owner.id)).order_by(RegisteredBot.name)
    )
    return {
        "name": owner.name,
        "created_at": owner.created_at.isoformat(),
        "token": "revoked" if revoked(owner) else "active",
        "bots": list(bots),
    }


def all_owners(session: Session) -> list[Owner]:
    return list(session.scalars(select(Owner).order_by(Owner.name)))


def authenticate(session: Session, token: str) -> Owner | None:
    if not token:
        return None
    return session.scalar(select(Owner).where(Owner.token_hash == digest(token)))
