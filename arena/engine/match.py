"""A match: ``deals`` deals from one seed, with dealer rotation, losses and the final ranking.

docs/rules.md "End and ranking": each deal's loser takes one loss; the match ranks by
fewer losses, then by the sum of places; equal players share a place. A seat
that forfeits stays out for the rest of the match and ranks below every other
(an earlier forfeit lower).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from arena.engine.deal import Deal
from arena.engine.game import Game

Ranking = tuple[tuple[int, ...], ...]


@dataclass
class Match:
    game: Game
    seed: int | str
    dealer: int = 0
    results: list[Ranking] = field(default_factory=list)
    losses: list[int] = field(init=False)
    place_sums: list[int] = field(init=False)
    forfeits: list[int] = field(default_factory=list)
    deal: Deal | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.losses = [0] * self.game.players
        self.place_sums = [0] * self.game.players

    @property
    def over(self) -> bool:
        remaining = self.game.players - len(self.forfeits)
        return len(self.results) >= self.game.options.deals or remaining <= 1

    def deal_seed(self, index: int) -> str:
        """The seed of deal ``index``: derived, so one match seed replays every deal."""
        return f"{self.seed}/{index}"

    def next_deal(self, cards: Sequence[str] | None = None, seed: str | None = None) -> Deal:
        """Shuffle and deal the next deal among the seats still in the match (or deal
        the deck in the order ``cards``, the deal's own draws seeded with ``seed``: chance
        made explicit, as OpenSpiel wants it)."""
        if self.over:
            raise RuntimeError("the match is over")
        if self.deal is not None and not self.deal.over:
            raise RuntimeError("the current deal is not over")
        seed = self.deal_seed(len(self.results)) if seed is None else seed
        absent = frozenset(self.forfeits)
        seats = [seat for seat in range(self.game.players) if seat not in absent]
        if cards is None:
            hands, stock, hidden = self.game.shuffled_layout(seed, self.dealer, seats)
        else:
            hands, stock, hidden = self.game.layout(cards, self.dealer, seats)
        self.deal = Deal(
            self.game,
            hands,
            dealer=self.dealer,
            stock=stock,
            hidden=hidden,
            seed=seed,
            absent=absent,
        )
        return self.deal

    def forfeit(self, seat: int) -> None:
        """Remove ``seat`` from the match (and from the running deal)."""
        if seat in self.forfeits:
            return
        self.forfeits.append(seat)
        if self.deal is not None and not self.deal.over and self.deal.active[seat]:
            self.deal.forfeit(seat)

    def record(self, deal: Deal) -> None:
        """Count a finished deal: its loser takes a loss; everyone adds its place."""
        assert deal.ranking is not None, "record a deal once it is over"
        ranking = deal.ranking
        self.results.append(ranking)
        for place, group in places(ranking):
            for seat in group:
                self.place_sums[seat] += place
        for seat in _losers(ranking, self.forfeits, deal.forfeits):
            self.losses[seat] += 1
        self.dealer = self._next_dealer(ranking, deal.forfeits)

    def ranking(self) -> Ranking:
        """Seats grouped by shared place, best first."""
        seats = [seat for seat in range(self.game.players) if seat not in self.forfeits]
        keys = sorted({(self.losses[s], self.place_sums[s]) for s in seats})
        groups = [
            tuple(s for s in seats if (self.losses[s], self.place_sums[s]) == key) for key in keys
        ]
        groups.extend((seat,) for seat in reversed(self.forfeits))
        return tuple(groups)

    def _next_dealer(self, ranking: Ranking, deal_forfeits: list[int]) -> int:
        out = set(self.forfeits)
        if self.game.options.loser_deals_next:
            losers = _losers(ranking, self.forfeits, deal_forfeits)
            if len(losers) == 1:
                return losers[0]
        dealer = (self.dealer + 1) % self.game.players
        while dealer in out and len(out) < self.game.players:
            dealer = (dealer + 1) % self.game.players
        return dealer


def places(ranking: Ranking) -> list[tuple[int, tuple[int, ...]]]:
    """(place, group) pairs: a shared place takes the best number (1, 2, 2, 4)."""
    places, place = [], 1
    for group in ranking:
        places.append((place, group))
        place += len(group)
    return places


def _losers(ranking: Ranking, match_forfeits: list[int], deal_forfeits: list[int]) -> list[int]:
    """The deal's loser(s): the last place among the seats that did not forfeit."""
    out = set(match_forfeits) | set(deal_forfeits)
    for group in reversed(ranking):
        kept = [seat for seat in group if seat not in out]
        if kept:
            return kept
    return []
