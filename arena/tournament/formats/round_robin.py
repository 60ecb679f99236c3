"""Round robin: every match scheduled at creation, every bot meeting every other about
equally often in every seat (arena.tournament.schedule); with duplicate deals each deal
is played once per seat rotation (a deal group)."""

from __future__ import annotations

from arena.tournament import schedule, seeds
from arena.tournament.formats.base import Format, NewTournament, Plan, Seating


class RoundRobin(Format):
    name = "round_robin"
    label = "round robin"
    usage = "every match scheduled now (--games matches, --duplicate deals)"
    parameters = ("games", "duplicate")

    def seating(self, new: NewTournament) -> Seating:
        key = new.key
        if new.duplicate:
            groups = schedule.duplicate(new.bots, new.table_size, new.games, key, new.teams)
            plan: Plan = [
                (group, table, seeds.match_seed(key, seeds.group_place(group)))
                for group, table in groups
            ]
        else:
            tables = schedule.round_robin(new.bots, new.table_size, new.games, key, new.teams)
            plan = [
                (None, table, seeds.match_seed(key, seeds.round_robin_place(index)))
                for index, table in enumerate(tables)
            ]
        return Seating(plan, len(plan), new.duplicate)
