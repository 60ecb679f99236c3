"""Qualification: the platform's record of qualification matches (arena.store.qualifications),
one played when a version is submitted, its deal from a key used once (so its log is
public at once)."""

from __future__ import annotations

from arena.tournament.formats.base import Format, Plays, Reveal


class Qualification(Format):
    name = "qualification"
    label = "qualification"
    plays = Plays.BY_THE_PLATFORM
    made_by = "qualification matches are played when a bot is submitted"
    listed = False
    reveal = Reveal.AT_ONCE
