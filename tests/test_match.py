"""Matches of several deals: losses, places, dealer rotation, forfeits."""

from __future__ import annotations

from arena.engine import Game, Ruleset
from arena.engine.match import Match, places
from arena.game.selfplay import play_deal
from arena.policies import RandomLegal


def play(match: Match, seed: int = 0) -> None:
    policies = [RandomLegal(f"{seed}/{s}") for s in range(match.game.players)]
    while not match.over:
        deal = match.next_deal()
        play_deal(deal, policies)
        match.record(deal)


def test_places_share_the_best_number() -> None:
    assert places(((0,), (1, 2), (3,))) == [(1, (0,)), (2, (1, 2)), (4, (3,))]


def test_a_match_counts_losses_then_places() -> None:
    game = Game(Ruleset.parse("classic", {"deals": 5}), 3)
    match = Match(game, seed=9)
    play(match)
    assert len(match.results) == 5 and sum(match.losses) == 5
    for ranking in match.results:
        assert match.losses[ranking[-1][0]] >= 1
    ranked = [seat for group in match.ranking() for seat in group]
    assert sorted(ranked) == [0, 1, 2]
    keys = [(match.losses[g[0]], match.place_sums[g[0]]) for g in match.ranking()]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)


def test_same_seed_same_match() -> None:
    game = Game(Ruleset.parse("classic", {"deals": 3}), 4)
    first, second = Match(game, seed="s"), Match(game, seed="s")
    play(first, 1)
    play(second, 1)
    assert first.results == second.results and first.ranking() == second.ranking()


def test_the_dealer_rotates_or_the_loser_deals() -> None:
    rotate = Match(Game(Ruleset.parse("classic", {"deals": 4}), 3), seed=1, dealer=0)
    dealers = []
    while not rotate.over:
        dealers.append(rotate.dealer)
        deal = rotate.next_deal()
        play_deal(deal, [RandomLegal(s) for s in range(3)])
        rotate.record(deal)
    assert dealers == [0, 1, 2, 0]
    loser = Match(Game(Ruleset.parse("russian", {"deals": 3}), 3), seed=1)
    while not loser.over:
        deal = loser.next_deal()
        play_deal(deal, [RandomLegal(s) for s in range(3)])
        loser.record(deal)
        assert loser.dealer == deal.ranking[-1][0], "the loser deals next"


def test_a_forfeit_lasts_for_the_rest_of_the_match() -> None:
    game = Game(Ruleset.parse("classic", {"deals": 3}), 3)
    match = Match(game, seed=4)
    deal = match.next_deal()
    match.forfeit(1)
    assert not deal.active[1] and deal.forfeits == [1]
    play_deal(deal, [RandomLegal(s) for s in range(3)])
    match.record(deal)
    nxt = match.next_deal()
    assert nxt.hands[1] == [] and not nxt.active[1], "a forfeited seat is dealt no cards"
    play_deal(nxt, [RandomLegal(s) for s in range(3)])
    match.record(nxt)
    assert match.ranking()[-1] == (1,)
    assert match.losses[1] == 0 and sum(match.losses) == 2
