"""Scrimmage: an owner's unranked matches of one bot version against rivals they chose
(arena.store.scrimmages): every match seats them all, scheduled at creation as a round
robin, private to its owner."""

from __future__ import annotations

from arena.tournament.formats.round_robin import RoundRobin


class Scrimmage(RoundRobin):
    name = "scrimmage"
    label = "scrimmage"
    made_by = "a scrimmage is made with `arena scrimmage` (POST /api/v1/scrimmages)"
    listed = False
    private = True
