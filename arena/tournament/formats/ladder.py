"""Ladder: keeps ``games`` tables in play until it is stopped, each new table seated
as it plays (arena.store.ladder); a competition's season is one. Its logs are public
``reveal_delay`` seconds after each match."""

from __future__ import annotations

from arena.tournament.formats.base import Format, NewTournament, Plays, Reveal, Seating


class Ladder(Format):
    name = "ladder"
    label = "ladder"
    usage = "plays until stopped (--games tables in play)"
    unit = "tables in play"
    plays = Plays.TABLES_IN_PLAY
    ends_by_itself = False
    reveal = Reveal.AFTER_A_DELAY
    parameters = ("games", "duplicate", "reveal_after")

    def seating(self, new: NewTournament) -> Seating:
        """Nothing now: its tables are seated as it plays."""
        if len(new.bots) < new.table_size and not new.waits_for_bots:
            raise ValueError(f"a table of {new.table_size} needs at least {new.table_size} bots")
        return Seating([], new.games, new.duplicate)
