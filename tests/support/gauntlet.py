"""A format of the test suite's own, registered here and nowhere in the platform: the
first bot listed meets every other, at every table. It proves that a format is one module
plus one line (docs/architecture.md "Adding a format"): tests/test_formats.py plays it
through the CLI, a worker (``ARENA_FORMATS=tests.support.gauntlet``), the API and the page."""

from __future__ import annotations

from arena.tournament import formats, seeds
from arena.tournament.formats.base import Format, NewTournament, Seating


class Gauntlet(Format):
    name = "gauntlet"
    label = "gauntlet"
    usage = "the first bot listed against every other at each of --games tables"
    explained = "Gauntlet: the first bot listed sits at every table, the others in turn."

    def seating(self, new: NewTournament) -> Seating:
        new.check_fills_a_table()
        hero, others = new.bots[0], list(new.bots[1:])
        rest = new.table_size - 1
        plan = []
        for index in range(new.games):
            start = index * rest
            table = [hero] + [others[(start + i) % len(others)] for i in range(rest)]
            shift = index % new.table_size  # the first bot in every seat in turn
            seated = table[shift:] + table[:shift]
            plan.append((None, seated, seeds.match_seed(new.key, f"gauntlet/{index}")))
        return Seating(plan, new.games, False)


GAUNTLET = formats.register(Gauntlet())
