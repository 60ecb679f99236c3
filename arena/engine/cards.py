"""Cards, ranks and decks.

A card is its text id: rank + suit (``"7C"``, ``"TH"``, ``"AS"``) or ``"JK"`` for
a joker. Plain strings hash and compare fast, print as themselves, and round-trip
through JSON and protobuf unchanged, so the engine uses them directly.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

RANKS: tuple[str, ...] = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")
SUITS: tuple[str, ...] = ("S", "H", "D", "C")
JOKER = "JK"

#: The rank of every card id, the joker included (its rank is ``"JK"``).
RANK_OF: dict[str, str] = {rank + suit: rank for rank in RANKS for suit in SUITS}
RANK_OF[JOKER] = JOKER
#: every card id as one shared object: the engine keeps its cards as these, so a card is
#: found in a hand by identity (a pointer comparison compiled) before equality is tried
CARDS: dict[str, str] = {card: card for card in RANK_OF}
#: the cards that make a claim of each rank true: the rank's own, and the joker
TRUE_FOR: dict[str, frozenset[str]] = {
    rank: frozenset([*(rank + suit for suit in SUITS), JOKER]) for rank in RANKS
}

DECK_SIZES = (36, 52)


def true_to(cards: Sequence[str], rank: str) -> bool:
    """Whether each of ``cards`` makes a claim of ``rank`` true: the rank's own or a joker."""
    allowed = TRUE_FOR[rank]
    for card in cards:  # noqa: SIM110  # compiled, a loop: all() over a generator is slower
        if card not in allowed:
            return False
    return True


def truthful(cards: Sequence[str], rank: str, count: int) -> bool:
    """The rule of every call: a group played as ``count`` cards of ``rank`` is true when
    it holds that many cards, each true to the rank (:func:`true_to`)."""
    return len(cards) == count and true_to(cards, rank)


class CardError(ValueError):
    """A card or rank id that does not exist."""


def parse_rank(text: str) -> str:
    """Return the canonical rank id of ``text`` (``"7"``, ``"T"``, ``"A"``...)."""
    rank = str(text).strip().upper().replace("10", "T")
    if rank not in RANKS:
        raise CardError(f"unknown rank {text!r}: expected one of {' '.join(RANKS)}")
    return rank


def deck_ranks(size: int) -> tuple[str, ...]:
    """Ranks of a ``size``-card deck, low to high: 6..A for 36 cards, 2..A for 52."""
    if size not in DECK_SIZES:
        raise CardError(f"no {size}-card deck: expected one of {DECK_SIZES}")
    return RANKS[RANKS.index("6") :] if size == 36 else RANKS


def build_deck(size: int, decks: int = 1, jokers: int = 0) -> list[str]:
    """All cards in a canonical order (rank-major), before any shuffle."""
    one = [CARDS[rank + suit] for rank in deck_ranks(size) for suit in SUITS]
    return one * decks + [JOKER] * jokers


def ascending_sequence(ranks: Iterable[str]) -> tuple[str, ...]:
    """``ranks`` in the ascending-variant order: the ace low, then 2..K."""
    ordered = sorted(set(ranks), key=RANKS.index)
    if "A" in ordered:
        ordered.remove("A")
        ordered.insert(0, "A")
    return tuple(ordered)


def fours_in(hand: Iterable[str], exempt: Iterable[str] = ()) -> dict[str, int]:
    """Ranks held four times or more (jokers and exempt ranks excluded), with how many fours."""
    skip = set(exempt)
    skip.add(JOKER)
    counts = Counter(RANK_OF[card] for card in hand)
    return {rank: n // 4 for rank, n in counts.items() if n >= 4 and rank not in skip}
