"""A/B test: the matches of an owner's A/B test (arena.abtest, arena.store.abtests),
seated a pair at a time until its sequential test decides; each pair counts toward the
test instead of a rating. Ranked work: it gates a version's promotion."""

from __future__ import annotations

from arena.tournament.formats.base import Counting, Format, Plays


class AbTest(Format):
    name = "abtest"
    label = "A/B test"
    plays = Plays.IN_PAIRS
    made_by = "an A/B test is made with `arena abtest create` (POST /api/v1/abtests)"
    listed = False
    ranked_work = True
    counting = Counting.PAIRS
