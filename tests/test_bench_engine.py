"""The engine bench's yardsticks: recorded decisions made again, and plays counted."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given
from hypothesis import strategies as st

from arena.bench import engine
from arena.bench.perft import concrete_plays
from arena.engine import Game, Ruleset
from arena.engine.events import Illegal
from arena.engine.legal import PlaySpec


def test_recorded_decisions_made_again_replay_their_deals_to_the_end() -> None:
    game = Game(Ruleset.parse("classic"), 4)
    for seed, decisions in engine.record(game, range(3)):
        deal = engine.new_deal(game, seed)
        for seat, action in decisions:
            assert deal.legal(seat) is not None
            deal.apply(seat, action)
        assert deal.over and deal.turns == len(decisions)
        assert not any(isinstance(event, Illegal) for event in deal.events)


def test_moves_made_are_counted_a_second() -> None:
    game = Game(Ruleset.parse("classic"), 4)
    recorded = engine.record(game, range(2))
    assert engine.made_per_s(game, recorded, 0.01) > 0


@given(
    hand=st.lists(st.sampled_from(["6H", "6S", "7H", "8D"]), max_size=7),
    max_cards=st.integers(1, 7),
    honest=st.booleans(),
    max_count=st.integers(1, 9),
)
def test_concrete_plays_counts_the_distinct_plays_one_by_one(
    hand: list[str], max_cards: int, honest: bool, max_count: int
) -> None:
    spec = PlaySpec(("6", "7", "8"), max_cards, honest, max_count)
    card_sets = {
        tuple(sorted(cards))
        for size in range(1, max_cards + 1)
        for cards in combinations(hand, size)
    }
    plays = {
        (cards, rank, count)
        for cards in card_sets
        for rank in spec.ranks
        for count in ([len(cards)] if honest else range(1, max_count + 1))
    }
    assert concrete_plays(spec, hand) == len(plays)


def test_the_first_lead_of_a_classic_deal_opens_every_set_of_the_hand() -> None:
    game = Game(Ruleset.parse("classic"), 4)
    deal = engine.new_deal(game, 0)
    legal = deal.legal()
    assert legal is not None and legal.play is not None
    hand = deal.hands[legal.seat]  # distinct cards (one deck): every non-empty subset
    subsets = 2 ** len(hand) - 1
    expected = subsets * len(legal.play.ranks) * legal.play.max_count
    assert engine.first_lead_plays(game) == expected
