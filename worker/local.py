"""A tournament played in this process, as one worker plays it but without a queue:
start it, then claim, play and record each queued match in turn. For tools that need a
played tournament at once (``python -m dashboard.screenshots``)."""

from __future__ import annotations

from contextlib import ExitStack

from sqlalchemy import select

from arena.base import aio
from arena.base.states import MatchStatus
from arena.engine import Ruleset
from arena.fairplay.counting import Tally
from arena.referee import Referee, RefereeSettings
from arena.referee.log import MatchLog
from arena.store import matches, tournaments
from arena.store.db import Database
from arena.store.models import TournamentMatch
from worker.seats import seats_for


def play_through(db: Database, name: str, worker_name: str = "local") -> list[int]:
    """Start the tournament ``name`` and play every match it queues; their ids in order."""
    db.transaction(lambda session: tournaments.start(session, name))
    with db.read() as session:
        tournament_id = tournaments.get(session, name).id
        queued = list(
            session.scalars(
                select(TournamentMatch.id)
                .where(
                    TournamentMatch.tournament_id == tournament_id,
                    TournamentMatch.status == MatchStatus.QUEUED,
                )
                .order_by(TournamentMatch.id)
            )
        )
    for match_id in queued:
        plan = matches.claim(db, match_id, worker_name)
        assert plan is not None, f"match {match_id} was claimed elsewhere"
        log, tallies = play(plan)
        matches.record(db, plan, log, 0.0, fairplay=tallies)
    return queued


def play(plan: matches.MatchPlan) -> tuple[MatchLog, tuple[Tally, ...]]:
    """Play a claimed match here: its log and the referee's fair-play tallies (what
    the recorder keeps beside it for the collusion report)."""
    rules = Ruleset.from_dict(plan.rules)
    with ExitStack() as stack:
        seats = seats_for(plan.seats, rules, plan.seed, stack)
        referee = Referee(rules, seats, plan.seed, RefereeSettings(**plan.settings))
        return aio.run(referee.run()), tuple(referee.fairplay.tallies())
