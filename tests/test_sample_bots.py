"""Sample bots: legal play under every ruleset, their characters, and counter beating random."""

from __future__ import annotations

import random

import pytest

from arena.engine import Deal, Game, Ruleset
from arena.engine.events import Illegal
from arena.game.selfplay import play_deal, play_series
from sample_bots import SAMPLES
from tests.support.engine import random_game

pytestmark = pytest.mark.processes

HEADS_UP = Ruleset.parse("classic")


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_a_sample_bot_only_makes_legal_moves_under_any_ruleset(name: str) -> None:
    for seed in range(30):
        rng = random.Random(seed)
        game = random_game(rng)
        hands, stock, hidden = game.shuffled_layout(seed, 0)
        deal = Deal(game, hands, dealer=0, stock=stock, hidden=hidden, seed=seed)
        bots = [
            SAMPLES[name](ruleset=game.ruleset, players=game.players, seed=s)
            for s in range(game.players)
        ]
        play_deal(deal, bots)
        illegal = [e for e in deal.events if isinstance(e, Illegal)]
        assert not illegal, f"{name} under {game.ruleset}: {illegal[:3]}"


def mean_places(first: str, second: str, deals: int = 400) -> tuple[float, float]:
    """Heads-up classic deals, seats alternated: each bot's mean place."""
    names = [first, second]
    half = deals // 2
    a = play_series(
        HEADS_UP,
        2,
        half,
        1,
        lambda seat, seed: SAMPLES[names[seat]](ruleset=HEADS_UP, players=2, seed=seed),
    )
    b = play_series(
        HEADS_UP,
        2,
        half,
        2,
        lambda seat, seed: SAMPLES[names[1 - seat]](ruleset=HEADS_UP, players=2, seed=seed),
    )
    first_mean = (a.mean_place(0) + b.mean_place(1)) / 2
    second_mean = (a.mean_place(1) + b.mean_place(0)) / 2
    return first_mean, second_mean


def test_counter_beats_random_clearly_in_400_heads_up_deals() -> None:
    counter, rand = mean_places("counter", "random")
    assert counter + rand == pytest.approx(3.0), "heads-up places are 1 and 2"
    assert rand - counter >= 0.5, f"counter {counter:.3f} vs random {rand:.3f}"


def test_counter_beats_honest_and_bluffer() -> None:
    counter, honest = mean_places("counter", "honest")
    assert counter < honest
    counter, bluffer = mean_places("counter", "bluffer", 100)
    assert counter < bluffer


def observe_decisions(name: str, rules: Ruleset, players: int, seeds: int):
    """(observation, action) for every decision of ``name`` at seat 0."""
    game = Game(rules, players)
    for seed in range(seeds):
        hands, stock, hidden = game.shuffled_layout(seed, 0)
        deal = Deal(game, hands, dealer=0, stock=stock, hidden=hidden)
        bots = [
            SAMPLES[name if s == 0 else "random"](ruleset=rules, players=players, seed=s)
            for s in range(players)
        ]
        cursors = [0] * players
        while not deal.over:
            seat = deal.to_act
            observation = deal.observation(seat, cursors[seat])
            cursors[seat] = len(deal.events)
            action = bots[seat].act(observation)
            if seat == 0:
                yield observation, action
            deal.apply(seat, action)


def test_honest_never_lies_when_it_can_avoid_it() -> None:
    from arena.sdk.helpers import matching

    for observation, action in observe_decisions("honest", HEADS_UP, 3, 40):
        if action.kind != "play":
            continue
        true = all(card == "JK" or card[0] == action.rank for card in action.cards)
        if not true:
            legal = observation.legal
            assert not matching(observation.hand, action.rank), "it held true cards"
            assert (
                not legal.can_pass
                and not legal.believe
                and not legal.challenge
                or (observation.live is None)
            ), "it could have passed, believed or called instead"


def test_bluffer_never_believes_and_often_lies() -> None:
    lies = plays = 0
    for _, action in observe_decisions("bluffer", Ruleset.parse("classic"), 3, 40):
        assert action.kind != "believe"
        if action.kind == "play":
            plays += 1
            lies += not all(card[0] == action.rank for card in action.cards)
    assert lies / plays > 0.5
