"""Owners and their tokens as use cases: the operator names owners by name (the CLI), an
owner acts on their own account (the API); both end in the same calls."""

from __future__ import annotations

from arena.store import owners as store
from arena.store.db import Database


def add(db: Database, name: str) -> str:
    """Create the owner ``name``; their token, shown once."""
    _, token = db.transaction(lambda session: store.add_owner(session, name))
    return token


def rotate(db: Database, name: str) -> str:
    """A new token for the owner ``name`` (the old one stops working), shown once."""
    return db.transaction(lambda session: store.rotate_token(session, store.get(session, name)))


def revoke(db: Database, name: str) -> None:
    """No token works for the owner ``name`` any more (``rotate`` gives a new one)."""
    db.transaction(lambda session: store.revoke_token(session, store.get(session, name)))
