"""In-process play between policies: the loop behind `arena rules play` and the engine bench."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from arena.engine.deal import Deal
from arena.engine.events import EndReason, Illegal, PickedUp
from arena.engine.game import Game
from arena.engine.match import Match, places
from arena.engine.rules import Ruleset
from arena.fairplay.counting import FairPlayCounter
from arena.policies import Policy, RandomLegal


def play_deal(
    deal: Deal, policies: Sequence[Policy], fairplay: FairPlayCounter | None = None
) -> int:
    """Ask the seat to act for its action until the deal is over; return the decisions
    made. ``fairplay`` counts what the seats did to each other, as the referee does."""
    cursors = [0] * deal.players
    decisions = 0
    while deal.to_act is not None:
        seat = deal.to_act
        observation = deal.observation(seat, cursors[seat])
        cursors[seat] = len(deal.events)
        action = policies[seat].act(observation)
        if fairplay is None:
            deal.apply(seat, action)
        else:
            fairplay.before(deal, seat, observation.legal)
            before = len(deal.events)
            deal.apply(seat, action)
            fairplay.after(deal, seat, action, deal.events[before:])
        decisions += 1
    return decisions


@dataclass
class SeriesSummary:
    players: int
    games: int = 0
    deals: int = 0
    decisions: int = 0
    places: list[list[int]] = field(default_factory=list)  # seat -> count of each place
    pickups: list[int] = field(default_factory=list)
    cards_picked_up: list[int] = field(default_factory=list)
    illegal: list[int] = field(default_factory=list)
    max_turn_stops: int = 0

    def __post_init__(self) -> None:
        n = self.players
        self.places = [[0] * n for _ in range(n)]
        self.pickups, self.cards_picked_up, self.illegal = [0] * n, [0] * n, [0] * n

    def mean_place(self, seat: int) -> float:
        counts = self.places[seat]
        total = sum(counts)
        return sum((i + 1) * c for i, c in enumerate(counts)) / total if total else 0.0

    @property
    def mean_turns(self) -> float:
        return self.decisions / self.deals if self.deals else 0.0

    def add_deal(self, deal: Deal) -> None:
        self.deals += 1
        self.decisions += deal.turns
        self.max_turn_stops += deal.end_reason is EndReason.MAX_TURNS
        for event in deal.events:
            if isinstance(event, PickedUp):
                self.pickups[event.seat] += 1
                self.cards_picked_up[event.seat] += event.count
            elif isinstance(event, Illegal):
                self.illegal[event.seat] += 1

    def add_match(self, match: Match) -> None:
        self.games += 1
        for place, group in places(match.ranking()):
            for seat in group:
                self.places[seat][place - 1] += 1


def play_series(
    ruleset: Ruleset,
    players: int,
    games: int,
    seed: int,
    policy_factory: Callable[[int, str], Policy] = lambda seat, seed: RandomLegal(seed),
    progress: Callable[[int], None] | None = None,
) -> SeriesSummary:
    """Play ``games`` matches (each of the ruleset's ``deals``) between in-process policies."""
    game = Game(ruleset, players)
    summary = SeriesSummary(players)
    for index in range(games):
        policies = [policy_factory(seat, f"{seed}/{index}/{seat}") for seat in range(players)]
        match = Match(game, seed=f"{seed}/{index}", dealer=index % players)
        while not match.over:
            deal = match.next_deal()
            play_deal(deal, policies)
            match.record(deal)
            summary.add_deal(deal)
        summary.add_match(match)
        if progress is not None:
            progress(index + 1)
    return summary
