"""A ruleset resolved for a number of players: the fixed facts a deal asks about.

``Game`` answers the questions the deal's state machine asks ("which deck?",
"which ranks may be declared?", "what is the cap on a play?", "which rank comes
next?") so that the state machine holds no option logic of its own. It also
makes new deals: shuffled from a seed, or laid out explicitly (scenarios).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from arena.engine import draws
from arena.engine.cards import RANKS, ascending_sequence, build_deck, deck_ranks
from arena.engine.rules import Deck, Options, RulesError, Ruleset

#: a deal laid out: each seat's hand, the stock (top card first) and the hidden card
Layout = tuple[list[list[str]], list[str], str | None]

MIN_PLAYERS = 2
MAX_PLAYERS = 12


@dataclass(frozen=True)
class Game:
    ruleset: Ruleset
    players: int
    deck_size: int = field(init=False)
    decks: int = field(init=False)
    deck: tuple[str, ...] = field(init=False)
    deck_counts: Counter[str] = field(init=False, compare=False)
    declarable: frozenset[str] = field(init=False)
    next_rank: dict[str, str] = field(init=False, compare=False)
    max_play: int | None = field(init=False)
    #: the ranks a lead may claim, low to high
    lead_ranks: tuple[str, ...] = field(init=False, compare=False)
    #: the rules' answers a deal asks at every decision, read once per game (DealRules)
    deal_rules: DealRules = field(init=False, compare=False, repr=False)
    #: the legal actions already built, shared by this game's deals (Deal.legal)
    legal_memo: dict[int, object] = field(
        init=False, compare=False, repr=False, default_factory=dict
    )

    def __post_init__(self) -> None:
        options = self.ruleset.options
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise RulesError(f"{self.players} players: expected {MIN_PLAYERS} to {MAX_PLAYERS}")
        deck_size = _resolve_deck(options.deck, self.players)
        decks = _resolve_decks(options.decks, self.players)
        deck = tuple(build_deck(deck_size, decks, options.jokers))
        ranks = deck_ranks(deck_size)
        declarable = [rank for rank in ranks if rank not in options.banned_ranks]
        if not declarable:
            raise RulesError(f"banned_ranks leaves no rank of the {deck_size}-card deck to declare")
        sequence = ascending_sequence(declarable)
        copies = 4 * decks + options.jokers
        max_play = copies if options.max_play == "possible" else options.max_play
        needed = self.players * (options.hand_size or 1) + int(options.hidden_card)
        if needed > len(deck):
            raise RulesError(f"{len(deck)} cards cannot deal {self.players} hands as asked")
        set_ = object.__setattr__
        set_(self, "deck_size", deck_size)
        set_(self, "decks", decks)
        set_(self, "deck", deck)
        set_(self, "deck_counts", Counter(deck))
        set_(self, "declarable", frozenset(declarable))
        set_(
            self,
            "next_rank",
            {r: sequence[(i + 1) % len(sequence)] for i, r in enumerate(sequence)},
        )
        set_(self, "max_play", max_play)
        set_(self, "lead_ranks", tuple(rank for rank in RANKS if rank in declarable))
        set_(self, "deal_rules", DealRules(options))

    def __deepcopy__(self, memo: dict[int, object]) -> Game:
        return self  # immutable (its memo only caches): copies of a state share their game

    @property
    def options(self) -> Options:
        return self.ruleset.options

    def check_layout(self, cards: Sequence[str]) -> None:
        """Raise :class:`RulesError` when ``cards`` are not a sub-multiset of the deck."""
        for card, held in Counter(cards).items():
            copies = self.deck_counts.get(card, 0)
            if copies == 0:
                raise RulesError(f"card {card!r} is not in the {self.deck_size}-card deck")
            if held > copies:
                raise RulesError(f"card {card!r} is dealt {held} times; the deck holds {copies}")

    def shuffled_layout(
        self, seed: int | str | float, dealer: int, seats: Sequence[int] | None = None
    ) -> Layout:
        """Shuffle the deck with ``seed`` and deal it as docs/rules.md says.

        Returns ``(hands, stock, hidden)``; ``seats`` (default: all) are the seats
        dealt to, one card at a time clockwise starting left of the dealer.
        """
        return self.layout(self.shuffled(seed), dealer, seats)

    def shuffled(self, seed: int | str | float) -> list[str]:
        """The deck shuffled with ``seed``, top first."""
        cards = list(self.deck)
        draws.shuffle(random.Random(seed), cards)
        return cards

    def layout(
        self, cards: Sequence[str], dealer: int, seats: Sequence[int] | None = None
    ) -> Layout:
        """Deal the whole deck in the order ``cards`` (a shuffled deck, top first) as
        docs/rules.md says: ``(hands, stock, hidden)``."""
        cards = list(cards)
        hidden = cards.pop(0) if self.options.hidden_card else None
        order = _deal_order(self.players, dealer, seats)
        hands: list[list[str]] = [[] for _ in range(self.players)]
        limit = self.options.hand_size
        dealt = len(cards) if limit is None else min(len(cards), limit * len(order))
        for position, seat in enumerate(order):  # one card at a time, around the table
            hands[seat] = cards[position : dealt : len(order)]
        return hands, cards[dealt:], hidden


class DealRules:
    """The rules' answers a deal asks at every decision, by name (``rules.allow_pass``).
    Compiled (arena/native.py), a native class: each answer is read in one load."""

    def __init__(self, options: Options) -> None:
        self.fixed_sequence: bool = options.fixed_sequence
        self.honest_counts: bool = options.honest_counts
        self.believe_allowed: bool = options.believe_allowed
        self.calls_open: bool = options.calls_open
        self.reveals_one: bool = options.reveals_one
        self.keeps_value: bool = options.keeps_value
        self.believe_discards_group: bool = options.believe_discards_group
        self.quartets_always: bool = options.quartets_always
        self.quartets_after_pickup: bool = options.quartets_after_pickup
        self.first_out_wins: bool = options.first_out_wins
        self.protect_single_lead: bool = options.protect_single_lead
        self.allow_pass: bool = options.allow_pass
        self.max_turns: int = options.max_turns
        self.hand_size: int | None = options.hand_size
        self.final_call: bool = options.final_call


def _resolve_deck(deck: Deck, players: int) -> int:
    if deck is Deck.AUTO:
        return 36 if players <= 3 else 52
    return int(deck)


def _resolve_decks(decks: int | str, players: int) -> int:
    if decks == "auto":
        return 2 if players >= 6 else 1
    return int(decks)


def _deal_order(players: int, dealer: int, seats: Sequence[int] | None) -> list[int]:
    chosen = set(range(players) if seats is None else seats)
    return [s for s in ((dealer + 1 + i) % players for i in range(players)) if s in chosen]
