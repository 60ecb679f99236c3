"""Owners and their tokens as use cases: the operator names owners by name (the CLI), an
owner acts on their own account (the API); both end in the same calls."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from arena.base.people import Caller, Someone
from arena.services import rights, tokens
from arena.services.accounts import WALL_CLOCK, Clock
from arena.store import owners as store
from arena.store.db import Database
from arena.store.limits import SubmissionRate
from arena.store.models import Owner


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


def listing(db: Database) -> list[dict[str, Any]]:
    """Every owner as they may see themselves (never a token), by name."""
    with db.read() as session:
        return [store.describe(session, owner) for owner in store.all_owners(session)]


def owner_of(db: Database, token: str) -> int | None:
    """The id of the owner whose API token is ``token`` (None: nobody's)."""
    with db.read() as session:
        found = caller(session, token)
    return None if found is None else found.id


def scoped(db: Database, token: str) -> Caller | None:
    """The owner whose API token is ``token``, with what it may do (None: nobody's)."""
    with db.read() as session:
        return caller(session, token)


def caller(session: Session, token: str, clock: Clock = WALL_CLOCK) -> Caller | None:
    """The owner whose API token is ``token``, with what the token may do (None:
    nobody's), read in the request's own session."""
    return tokens.caller(session, token, clock)


def described(db: Database, owner_id: int) -> dict[str, Any]:
    """What the owner ``owner_id`` may see of itself (never a token)."""
    with db.read() as session:
        return store.describe(session, session.get_one(Owner, owner_id))


def check_submission_rate(db: Database, owner: Someone, rate: SubmissionRate) -> None:
    """``TooMany`` when ``owner`` submitted ``rate.per_hour`` versions in the last hour."""
    with db.read() as session:
        rights.check_submission_rate(session, owner, rate)
