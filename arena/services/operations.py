"""What the operator reads of the platform as a whole (``arena status``)."""

from __future__ import annotations

from sqlalchemy import func, select

from arena.base.states import MatchStatus
from arena.store.db import Database
from arena.store.models import TournamentMatch


def match_counts(db: Database) -> dict[MatchStatus, int]:
    """How many matches are in each state (a state with none is left out)."""
    with db.read() as session:
        counted = session.execute(
            select(TournamentMatch.status, func.count()).group_by(TournamentMatch.status)
        ).all()
    return {status: count for status, count in counted}
