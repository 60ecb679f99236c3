"""What a format is, as one object: what it is (its traits), what it reads from a request
(its parameters), how it schedules its matches at creation, how it plays on (which of
the platform's engines seats its matches as it plays, asking the format), how a result
counts, when a match's log is public, the word for what its ``games`` count and what its
page draws. Pure: the store runs the engines (arena.store.scheduling) and keeps the rows.

Adding a format is one module with one ``Format`` subclass and one ``register`` line
(arena.tournament.formats); docs/architecture.md walks through it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar


class Plays(StrEnum):
    """How a format's matches come to be: the engine that seats them."""

    #: every match scheduled when the tournament is created (``Format.seating``)
    AT_CREATION = "at_creation"
    #: a number of tables kept in play until it is stopped (arena.store.ladder)
    TABLES_IN_PLAY = "tables_in_play"
    #: a round seated when the last one is over (arena.store.rounds, ``InRounds``)
    IN_ROUNDS = "in_rounds"
    #: a pair of matches at a time until a verdict (arena.store.abtests)
    IN_PAIRS = "in_pairs"
    #: one match at a time, made by the platform (a submitted version's qualification)
    BY_THE_PLATFORM = "by_the_platform"


#: the engines that seat matches as the format plays, not all at creation
SELF_SCHEDULING = (Plays.TABLES_IN_PLAY, Plays.IN_ROUNDS, Plays.IN_PAIRS)


class Counting(StrEnum):
    """What a played match changes."""

    #: the entries' ratings (the tournament's rating of record)
    RATED = "rated"
    #: its A/B test's closed pairs and sequential test (arena.store.abtests), no rating
    PAIRS = "pairs"


class Reveal(StrEnum):
    """When a played match's full log (seed, hands) becomes public."""

    #: when the tournament is over, or its deal group is played through
    AT_THE_END = "at_the_end"
    #: ``reveal_delay`` seconds after the match (a group's: after its last rotation)
    AFTER_A_DELAY = "after_a_delay"
    #: once it is played: its deal came from a key used once
    AT_ONCE = "at_once"


#: a match to play at creation: its deal group (None: no duplicate), bots by seat, seed
Plan = list[tuple[int | None, list[int], str]]


@dataclass(frozen=True)
class NewTournament:
    """What a format's schedule reads at creation."""

    #: the entries' bot versions, in the order asked for (their seeding)
    bots: Sequence[int]
    table_size: int
    #: the request's count, as the format reads it (``Format.games_from``)
    games: int
    #: the secret the match seeds derive from (arena.tournament.seeds)
    key: str
    #: bot version -> its owner, for formats that keep an owner's bots apart
    teams: Mapping[int, int]
    duplicate: bool = False
    #: a competition's ladder: it may start with fewer bots than a table
    waits_for_bots: bool = False
    #: a knockout's: how many of each table go on
    advance: int = 2
    #: an owner's private tournament: the most games it may play (None: the operator's)
    games_limit: int | None = None

    def check_fills_a_table(self) -> None:
        """Refuse (``ValueError``) a field too small for one table."""
        if len(self.bots) < self.table_size:
            raise ValueError(f"a table of {self.table_size} needs at least {self.table_size} bots")


@dataclass(frozen=True)
class Seating:
    """What a format schedules at creation: its matches (none for a format that seats as
    it plays), the games it counts, and whether deals are duplicated."""

    plan: Plan
    games: int
    duplicate: bool


class Format:
    """A tournament format. Subclasses set the class attributes that differ and override
    ``seating`` (and, played in rounds, ``InRounds``'s methods)."""

    #: its registered name, as stored on each tournament and typed in ``--format``
    name: ClassVar[str]
    #: as people read it
    label: ClassVar[str]
    #: a sentence on how it plays, for its page
    explained: ClassVar[str] = ""
    #: how it plays in a few words, with the options it reads (``--format``'s help)
    usage: ClassVar[str] = ""
    #: what its ``games`` count
    unit: ClassVar[str] = "matches"
    plays: ClassVar[Plays] = Plays.AT_CREATION
    #: a format that seats as it plays ends by itself (a ladder plays until stopped)
    ends_by_itself: ClassVar[bool] = True
    #: made by a command of its own, never ``arena tournament create``: which
    made_by: ClassVar[str | None] = None
    #: on the tournaments list (an A/B test is on /abtests, a qualification match on its
    #: version's page)
    listed: ClassVar[bool] = True
    #: its matches, results and logs are its owner's alone (and the operator's)
    private: ClassVar[bool] = False
    #: an owner's tournament of this format is ranked work (an A/B test gates a
    #: version), not private work played only when no ranked match waits
    ranked_work: ClassVar[bool] = False
    counting: ClassVar[Counting] = Counting.RATED
    reveal: ClassVar[Reveal] = Reveal.AT_THE_END
    #: the request's fields it reads, beside the bots, rules, table size and deadlines
    parameters: ClassVar[tuple[str, ...]] = ("games",)
    #: what its page draws beside the leaderboard and the ratings: "rounds", "bracket",
    #: "standings"
    draws: ClassVar[tuple[str, ...]] = ()

    @property
    def self_scheduling(self) -> bool:
        """It seats its matches as it plays (a refill after each recording)."""
        return self.plays in SELF_SCHEDULING

    @property
    def self_ending(self) -> bool:
        """Of those, it ends by itself: what a worker that stops once the queue is empty
        tops up."""
        return self.self_scheduling and self.ends_by_itself

    @property
    def keeps_tables(self) -> bool:
        """Its ``games`` are tables kept in play (a private one's limit is on tables)."""
        return self.plays is Plays.TABLES_IN_PLAY

    @property
    def in_rounds(self) -> bool:
        return self.plays is Plays.IN_ROUNDS

    def games_from(self, games: int, rounds: int) -> int:
        """The tournament's count from a request's ``games`` and ``rounds``."""
        return games

    def seating(self, new: NewTournament) -> Seating:
        """The matches to schedule at creation (a ``ValueError`` says why it cannot)."""
        raise ValueError(self.made_by or f"a {self.label} tournament cannot be created")

    def __repr__(self) -> str:
        return f"<format {self.name}>"
