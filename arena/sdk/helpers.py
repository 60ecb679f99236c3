"""Typed helpers for bots: cards by rank, truthful plays, and a tracker of what was seen."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from math import comb

from arena.engine import JOKER, RANK_OF, Game, LiveGroup, Observation, Play, PlaySpec, Ruleset
from arena.engine.events import Dealt, Discarded, Event, Revealed


def by_rank(hand: Iterable[str]) -> dict[str, list[str]]:
    """The hand's cards grouped by rank (jokers under ``"JK"``)."""
    groups: dict[str, list[str]] = {}
    for card in hand:
        groups.setdefault(RANK_OF[card], []).append(card)
    return groups


def matching(hand: Iterable[str], rank: str) -> list[str]:
    """Cards that make a claim of ``rank`` true: that rank's cards first, then jokers."""
    cards = list(hand)
    return [c for c in cards if RANK_OF[c] == rank] + [c for c in cards if c == JOKER]


def truthful_play(
    spec: PlaySpec, hand: Iterable[str], rank: str, limit: int | None = None
) -> Play | None:
    """The largest true play of ``rank`` the spec allows (at most ``limit`` cards), if any."""
    cards = matching(hand, rank)[: min(spec.max_cards, limit or spec.max_cards)]
    return Play(tuple(cards), rank, len(cards)) if cards else None


def cheapest_lie(hand: Iterable[str], rank: str) -> Play:
    """One card claimed as ``rank``: of the rank held fewest of (never a joker, which would
    make the claim true) - the smallest lie when a lie cannot be avoided."""
    cards = list(hand)
    groups = by_rank(cards)
    card = min(cards, key=lambda c: (c == JOKER, len(groups[RANK_OF[c]])))
    return Play((card,), rank, 1)


def best_lead_rank(spec: PlaySpec, hand: Iterable[str]) -> str:
    """The allowed rank the hand holds most of (ties: the lowest rank)."""
    groups = by_rank(hand)
    return max(spec.ranks, key=lambda rank: (len(groups.get(rank, ())), -spec.ranks.index(rank)))


class CardTracker:
    """What one seat knows about where cards are, from its hand and the public events.

    It keeps the cards seen leaving play (shown discards), so it can bound how many
    cards of a rank can still be in play, and estimate how likely a claim is true.
    """

    def __init__(self, ruleset: Ruleset, players: int) -> None:
        game = Game(ruleset, players)
        self.copies: Counter[str] = Counter(RANK_OF[card] for card in game.deck)
        self.jokers = self.copies.pop(JOKER, 0)
        self.deck_size = len(game.deck)
        self.gone: Counter[str] = Counter()  # ranks seen leaving play
        self.revealed: Counter[int] = Counter()  # per author: groups revealed by calls
        self.truthful: Counter[int] = Counter()  # ... of which were true (across the match)

    def update(self, events: Iterable[Event]) -> None:
        for event in events:
            if isinstance(event, Dealt):
                self.gone.clear()
            elif isinstance(event, Discarded):
                self.gone.update(RANK_OF[card] for card in event.cards)
            elif isinstance(event, Revealed):
                self.revealed[event.author] += 1
                self.truthful[event.author] += event.truthful

    def honesty(self, author: int) -> float:
        """The share of ``author``'s revealed groups that were true (Laplace-smoothed)."""
        return (self.truthful[author] + 1) / (self.revealed[author] + 2)

    def available(self, rank: str, hand: Iterable[str]) -> int:
        """Cards that could make a claim of ``rank`` true outside this hand (jokers count)."""
        mine = sum(1 for card in hand if RANK_OF[card] in (rank, JOKER))
        gone_jokers = self.gone.get(JOKER, 0)
        total = self.copies[rank] + self.jokers - self.gone[rank] - gone_jokers
        return max(0, total - mine)

    def unknown(self, observation: Observation) -> int:
        """Cards in play that this seat cannot see."""
        return max(1, self.deck_size - len(observation.hand) - sum(self.gone.values()))

    def provably_false(self, observation: Observation, group: LiveGroup) -> bool:
        """True when the group cannot be true: wrong count, or more cards than can exist."""
        if group.placed != group.count:
            return True
        return group.placed > self.available(group.rank, observation.hand)

    def probability_true(self, observation: Observation, group: LiveGroup) -> float:
        """How likely the group is true: its author told the truth (by their record of
        revealed groups) or, lying or not, drew the right cards blind from what this
        seat cannot see. Zero when it is provably false."""
        if self.provably_false(observation, group):
            return 0.0
        good = self.available(group.rank, observation.hand)
        pool = max(self.unknown(observation), good)
        blind = comb(good, group.placed) / comb(pool, group.placed)
        honest = self.honesty(group.author)
        return honest + (1 - honest) * blind
