"""Owners and their API tokens (only a SHA-256 of each token is stored)."""

from __future__ import annotations

import hashlib
import secrets

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.store.errors import Conflict, StoreError
from arena.store.models import Owner


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def add_owner(session: Session, name: str) -> tuple[Owner, str]:
    """A new owner and its token (shown once; only its digest is kept)."""
    name = name.strip()
    if not name or len(name) > 100:
        raise StoreError("an owner name has 1 to 100 characters")
    if session.scalar(select(Owner).where(Owner.name == name)) is not None:
        raise Conflict(f"an owner named {name!r} exists already")
    token = f"arena_{secrets.token_urlsafe(32)}"
    owner = Owner(name=name, token_hash=_digest(token))
    session.add(owner)
    session.flush()
    return owner, token


def authenticate(session: Session, token: str) -> Owner | None:
    if not token:
        return None
    return session.scalar(select(Owner).where(Owner.token_hash == _digest(token)))
