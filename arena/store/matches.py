"""Matches as the workers see them: claim, keep the lease, record once, or give back.

Exactly once: a worker may record a match only while it holds the match's current
claim (a random token set when it claimed the match). A job that runs twice, or a
worker that was presumed dead and comes back, finds its claim gone and its result is
discarded. The parts, each in its own module:

- ``arena.store.leases``: claiming, renewing and giving back matches, reconciling
  what dead workers left;
- ``arena.store.results``: recording a batch of played matches in one transaction,
  which locks the matches and then the tournament row, so concurrent workers apply
  ratings one batch at a time, in completion order;
- ``arena.store.rating_policy``: how results move ratings (per match, or per deal group
  in a duplicate tournament);
- ``arena.store.logs``: the stored form of a match log.
"""

from __future__ import annotations

from arena.base.timing import LEASE
from arena.store.leases import (
    MAX_ATTEMPTS,
    MatchPlan,
    Repairs,
    SeatPlan,
    claim,
    claim_all,
    give_back,
    pass_on,
    reconcile,
    renew,
    still_queued,
    with_outside_bots,
)
from arena.store.results import PlayedMatch, record, record_all

__all__ = [
    "LEASE", "MAX_ATTEMPTS", "MatchPlan", "PlayedMatch", "Repairs", "SeatPlan", "claim",
    "claim_all", "give_back", "pass_on", "reconcile", "record", "record_all", "renew",
    "still_queued", "with_outside_bots",
]  # fmt: skip
