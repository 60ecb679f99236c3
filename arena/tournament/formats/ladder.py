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
        if not new.waits_for_bots:
            new.check_fills_a_table()
        return Seating([], new.games, new.duplicate)
