"""What an operator watches, read from the database: matches by tournament and status,
forfeits by kind. Owners' own tournaments are summed under one name (their names are
theirs)."""

from __future__ import annotations

from collections import Counter

from sqlalchemy import case, func, select
from sqlalchemy.orm import Session

from arena.store.models import MatchSeat, Tournament, TournamentMatch

#: the name owners' own tournaments are counted under
PRIVATE = "(owners' own)"


def matches_by_status(session: Session) -> list[tuple[str, str, int]]:
    """(tournament, status, matches) for every tournament that has matches; an owner's
    own runs (A/B tests, scrimmages, private tournaments) summed under one label: their
    names are the owners' words, and a label each would let anyone grow /metrics."""
    name = case((Tournament.owner_id.is_not(None), PRIVATE), else_=Tournament.name)
    rows = session.execute(
        select(name, TournamentMatch.status, func.count())
        .join(Tournament, Tournament.id == TournamentMatch.tournament_id)
        .group_by(name, TournamentMatch.status)
    )
    return [(tournament, str(status), count) for tournament, status, count in rows]


def match_counts(session: Session) -> dict[str, int]:
    """How many matches are in each status, over every tournament (a status with none
    is left out)."""
    totals: Counter[str] = Counter()
    for _, status, count in matches_by_status(session):
        totals[status] += count
    return dict(totals)


def forfeits_by_kind(session: Session) -> list[tuple[str, int]]:
    """(kind, seats) of every forfeit recorded."""
    rows = session.execute(
        select(MatchSeat.forfeit_kind, func.count())
        .where(MatchSeat.forfeit.is_(True))
        .group_by(MatchSeat.forfeit_kind)
    )
    return [(kind or "unknown", count) for kind, count in rows]
