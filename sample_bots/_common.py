"""What the sample bots share: rule knowledge that arrives at the start of a match."""

from __future__ import annotations

from arena.engine import Ruleset
from arena.sdk import Bot, MatchInfo, Observation
from arena.sdk.helpers import CardTracker


class TrackingBot(Bot):
    """A bot that tracks seen cards; in process it is built with the ruleset directly."""

    def __init__(
        self,
        ruleset: Ruleset | None = None,
        players: int | None = None,
        seed: int | str | None = None,
    ) -> None:
        self.seed = seed
        self.tracker = CardTracker(ruleset, players) if ruleset and players else None

    def on_match_start(self, match: MatchInfo) -> None:
        self.tracker = CardTracker(match.ruleset, len(match.players))

    def observe(self, observation: Observation) -> CardTracker:
        if self.tracker is None:
            raise RuntimeError(f"{self.name} needs the ruleset: build it with one in process")
        self.tracker.update(observation.events)
        return self.tracker
