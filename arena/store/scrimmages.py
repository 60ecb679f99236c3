"""Scrimmages: an owner's unranked matches of one version of their bot against rivals
they choose, every match seating them all (seats rotating), played by the workers in
sandboxes as ranked matches are, after them (a private tournament of format
``scrimmage``: never on a leaderboard, within the owner's private limits).

A rival is a sample (``sample:NAME``), a bot of the owner's, or another owner's bot
whose owner lets it be chosen (``RegisteredBot.scrimmage_rival``).
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.base.people import Someone
from arena.store.models import Tournament
from arena.tournament import formats

#: a scrimmage's name: the prefix and a random part
PREFIX = "scrimmage-"


def of_owner(session: Session, owner: Someone, limit: int = 50) -> list[Tournament]:
    """An owner's scrimmages, the newest first."""
    return list(
        session.scalars(
            select(Tournament)
            .where(
                Tournament.owner_id == owner.id,
                Tournament.format == formats.SCRIMMAGE.name,
            )
            .order_by(Tournament.id.desc())
            .limit(limit)
        )
    )
