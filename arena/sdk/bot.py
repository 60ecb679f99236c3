"""The :class:`Bot` base class and what it is told at the start and end of a match."""

from __future__ import annotations

import json
from collections.abc import Awaitable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from arena.engine import Action, Observation, Ruleset


@dataclass(frozen=True)
class MatchInfo:
    match_id: str
    seat: int
    players: tuple[str, ...]
    ruleset: Ruleset
    deadline: float
    time_bank: float
    deals: int


@dataclass(frozen=True)
class MatchResult:
    #: groups of seats sharing a place, best first
    ranking: tuple[tuple[int, ...], ...]
    #: why this seat forfeited, or "" when it did not
    forfeit_reason: str
    #: this seat's view of the match as JSON text (docs/match-log.md "Views"): only for a
    #: bot with ``wants_log``
    log_json: str = ""

    @cached_property
    def log(self) -> dict[str, Any]:
        """This seat's view of the match: its own hands and actions, the public events,
        the cards shown to all; never the seed or another seat's hidden cards."""
        return json.loads(self.log_json) if self.log_json else {}


class Bot:
    """Subclass and implement :meth:`act`. A new instance plays each match."""

    #: sent in Hello and kept in the log as detail (pages show the registered name)
    name: str = "bot"
    version: str = "1"
    #: ask for this seat's view of the match at the end of each match (MatchResult.log)
    wants_log: bool = False
    #: how many matches this bot serves at once (its seats over every worker), said in
    #: Hello; 0 says nothing (the platform's default applies). None: ``ASYNC_MATCHES``
    #: for an ``async def act`` (it waits without holding the others up), 0 for a plain one
    max_matches: int | None = None

    def on_match_start(self, match: MatchInfo) -> None:
        """Called once before the first decision of a match."""

    def act(self, observation: Observation) -> Action | Awaitable[Action]:
        """Return the action for this decision; ``observation.legal`` says what is allowed.

        May be ``async def act``: a bot that awaits something (a model server, an API)
        then lets its server answer its other seats and matches meanwhile."""
        raise NotImplementedError

    def on_match_end(self, result: MatchResult) -> None:
        """Called once when the match is over."""
