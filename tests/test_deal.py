"""Rules that depend on chance or on the deal itself, tested with fixed seeds."""

from __future__ import annotations

from collections import Counter

import pytest

from arena.engine import CHALLENGE, Deal, Game, NotYourTurn, Play, Ruleset
from arena.engine.events import Revealed


def game(preset: str = "classic", players: int = 3, **options) -> Game:
    return Game(Ruleset.parse(preset, options), players)


def test_dealing_starts_left_of_the_dealer_one_card_at_a_time() -> None:
    g = game(players=5)
    hands, stock, hidden = g.shuffled_layout(11, dealer=3)
    assert stock == [] and hidden is None
    assert sorted(map(len, hands)) == [7, 7, 7, 7, 8]
    assert len(hands[4]) == 8, "the first card goes left of the dealer (seat 4)"
    assert Counter(card for hand in hands for card in hand) == Counter(g.deck)


def test_the_hidden_card_is_set_aside_out_of_every_hand() -> None:
    g = game("pagat", players=3)
    hands, stock, hidden = g.shuffled_layout(5, dealer=0)
    assert hidden is not None and all(hidden not in hand for hand in hands)
    assert sum(map(len, hands)) == 35 and not stock
    deal = Deal(g, hands, dealer=0, hidden=hidden)
    assert deal.events[0].hidden is True and hidden not in str(deal.observation(1))


def test_hand_size_deals_that_many_and_the_rest_is_the_stock() -> None:
    g = game(players=4, hand_size=5)
    hands, stock, _ = g.shuffled_layout(2, dealer=0)
    assert list(map(len, hands)) == [5, 5, 5, 5] and len(stock) == 16


def test_two_decks_from_six_players_hold_each_card_twice() -> None:
    g = game(players=6)
    assert Counter(g.deck)["7C"] == 2 and len(g.deck) == 72


@pytest.mark.parametrize(("first_player", "expected"), [("left_of_dealer", 2), ("dealer", 1)])
def test_first_player(first_player: str, expected: int) -> None:
    g = game(first_player=first_player)
    hands, stock, hidden = g.shuffled_layout(1, dealer=1)
    assert Deal(g, hands, dealer=1).to_act == expected


def reveal_one(seed: int) -> Revealed:
    g = game(reveal="one")
    deal = Deal(g, [["7C", "9D", "TS"], ["8S"], ["6C"]], dealer=2, seed=seed)
    deal.apply(0, Play.of(["7C", "9D"], "7"))
    deal.apply(1, CHALLENGE)
    return next(e for e in deal.events if isinstance(e, Revealed))


def test_reveal_one_shows_one_card_at_random_and_is_seeded() -> None:
    shown = {reveal_one(seed).cards for seed in range(40)}
    assert shown == {("7C",), ("9D",)}, "either card may be the one checked"
    assert reveal_one(3) == reveal_one(3)
    truthful = {reveal_one(seed).cards: reveal_one(seed).truthful for seed in range(40)}
    assert truthful == {("7C",): True, ("9D",): False}


def test_acting_out_of_turn_or_after_the_end_raises() -> None:
    deal = Deal(game(), [["7C"], ["8S", "6H"], ["QS", "6C"]], dealer=2)
    with pytest.raises(NotYourTurn):
        deal.apply(1, CHALLENGE)
    deal.apply(0, Play.of(["7C"], "7"))
    deal.forfeit(2)
    deal.apply(1, Play.of(["8S"], "7"))
    assert deal.over and deal.ranking == ((0,), (1,), (2,))
    with pytest.raises(NotYourTurn):
        deal.apply(1, CHALLENGE)


def test_legal_actions_describe_each_phase() -> None:
    deal = Deal(
        game("russian", **{"pass": True}), [["7C", "9D"], ["8S", "6H"], ["QS", "6C"]], dealer=0
    )
    lead = deal.legal()
    assert lead.kinds == ("play",) and lead.play.max_cards == 2 and lead.play.honest
    assert lead.play.ranks == ("6", "7", "8", "9", "T", "J", "Q", "K", "A")
    deal.apply(0, Play.of(["9D"], "7"))
    respond = deal.legal()
    assert respond.kinds == ("play", "pass"), "a protected one-card lead cannot be called"
    assert respond.play.ranks == ("7",)
    deal.apply(1, Play.of(["8S"], "7"))
    assert deal.legal().kinds == ("play", "challenge", "believe", "pass")


def test_a_late_answer_is_penalised_as_an_illegal_action() -> None:
    deal = Deal(game(), [["7C", "9D"], ["8S", "6H"], ["QS", "6C"]], dealer=2)
    deal.apply(0, Play.of(["9D"], "7"))
    with pytest.raises(NotYourTurn):
        deal.time_out(2)
    deal.time_out(1)
    assert deal.hands[1] == ["8S", "6H", "9D"] and deal.to_act == 2 and deal.turns == 2
    assert deal.events[-2].kind == "illegal" and deal.events[-2].reason == "late answer"


def test_a_claimed_count_may_not_exceed_the_cards_in_play() -> None:
    deal = Deal(game(), [["7C", "9D"], ["8S", "6H"], ["QS", "6C"]], dealer=2)
    assert deal.cards_in_play() == 6 and deal.legal().play.max_count == 6
    deal.apply(0, Play.of(["9D"], "7", 7))
    assert deal.events[-1].kind == "illegal"
    assert deal.events[-1].reason == "a claimed count above the cards in play"
    deal.apply(1, Play.of(["8S"], "7", 6))
    assert deal.events[-1].kind == "played" and deal.events[-1].count == 6


def test_a_rules_cap_on_plays_also_caps_the_claimed_count() -> None:
    deal = Deal(game("pagat"), [["7C", "9D", "8C", "8D"], ["8S", "6H"], ["QS"]], dealer=2)
    assert deal.legal().play.max_count == 3


def test_the_deal_keeps_the_hands_as_dealt_before_fours_are_discarded() -> None:
    hands = [["7C", "7D", "7H", "7S", "9D"], ["8S", "6H"], ["QS", "6C"]]
    deal = Deal(game(quartets="always"), hands, dealer=2)
    assert deal.hands[0] == ["9D"], "the opening four sevens are discarded"
    assert deal.dealt == tuple(map(tuple, hands))


def test_no_round_rank_once_the_deal_is_over() -> None:
    deal = Deal(game(players=2), [["7C"], ["8S", "6H"]], dealer=1)
    deal.apply(0, Play.of(["7C"], "7"))
    deal.apply(1, Play.of(["8S"], "7"))
    assert deal.over and deal.round_rank is None
    assert deal.observation(0).round_rank is None
