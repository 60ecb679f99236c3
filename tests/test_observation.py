"""Observations without leaks: a seat sees its own hand and public facts only.

The test keeps its own record of what was shown to the table, from the full state
(the live group's cards at each call, the fours taken out of hands), independent
of the engine's events, and checks every card id in every seat's observation
after every step against it.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from typing import Any

import pytest

from arena.engine import RANK_OF, Deal, Game, Observation, Ruleset
from arena.engine.events import Discarded, Revealed
from arena.policies import RandomLegal
from tests.support.engine import Recorder, random_game, seeds

#: every card id (a rank and a suit)
CARD_IDS = frozenset(card for card in RANK_OF if len(card) == 2)


def card_ids(value: Any) -> list[str]:
    """Every string in ``value`` (through nested tuples and lists) that is a card id."""
    found, pending = [], [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if item in CARD_IDS:
                found.append(item)
        elif isinstance(item, tuple | list):
            pending.extend(item)
    return found


def observed_cards(observation: Observation) -> list[str]:
    """The card ids anywhere in ``observation``: its events' through :func:`event_cards`
    (the same events recur at every later step: each is searched once)."""
    return card_ids(tuple(observation._replace(events=()))) + events_cards(observation.events)


def events_cards(events: tuple[Any, ...]) -> list[str]:
    return [card for event in events for card in event_cards(event)]


@functools.lru_cache(maxsize=100_000)
def event_cards(event: Any) -> tuple[str, ...]:
    return tuple(card_ids(event))


def assert_no_leak(deal: Deal, shown: set[str]) -> None:
    for seat in range(deal.players):
        observation = deal.observation(seat)
        own = set(deal.hands[seat])
        assert observation.hand == tuple(deal.hands[seat])
        leaked = [card for card in observed_cards(observation) if card not in own | shown]
        assert not leaked, f"seat {seat} sees {leaked} it was never shown"
        if deal.hidden is not None and deal.hidden not in shown:
            assert deal.hidden not in events_cards(observation.events)


def record_shown(deal: Deal, since: int, before: dict[str, Any], shown: set[str]) -> None:
    """Add to ``shown`` what the events from ``since`` on showed the table, checking each
    claim against the state ``before`` the step (live group, hands, pile, stock, discard)."""
    for event in deal.events[since:]:
        if isinstance(event, Revealed):
            assert Counter(event.cards) <= before["live"], "only the live group is revealed"
            if deal.options.reveal == "group":
                assert Counter(event.cards) == before["live"]
            else:
                assert len(event.cards) == 1
            shown.update(event.cards)
        elif isinstance(event, Discarded) and event.reason == "quartets":
            fours = Counter(event.cards)
            assert all(n % 4 == 0 for n in Counter(map(RANK_OF.get, fours.elements())).values())
            assert fours <= before["hands"][event.seat] + before["pile"] + before["stock"]
            assert fours <= Counter(deal.discard) - before["discard"]
            shown.update(fours)  # fours are shown as they leave play
        elif isinstance(event, Discarded):
            assert not event.cards or event.reason == "believed"


def snapshot(deal: Deal) -> dict[str, Any]:
    return {
        "live": Counter(deal.pile[-1].cards) if deal.live else Counter(),
        "hands": [Counter(hand) for hand in deal.hands],
        "pile": Counter(deal.pile_cards()),
        "stock": Counter(deal.stock),
        "discard": Counter(deal.discard),
    }


@pytest.mark.parametrize("seed", seeds(150))
def test_no_observation_holds_an_unrevealed_card(seed: int) -> None:
    rng = random.Random(seed)
    game = random_game(rng)
    hands, stock, hidden = game.shuffled_layout(seed, 0)
    deal = Deal(game, hands, dealer=0, stock=stock, hidden=hidden, seed=seed)
    recorder = Recorder(rng)
    policies = [RandomLegal(s) for s in range(game.players)]
    shown: set[str] = set()
    dealt = {
        "live": Counter(),
        "hands": [Counter(h) for h in hands],
        "pile": Counter(),
        "stock": Counter(stock),
        "discard": Counter(),
    }
    record_shown(deal, 0, dealt, shown)
    assert_no_leak(deal, shown)
    while not deal.over:
        before, since = snapshot(deal), len(deal.events)
        recorder.step(deal, policies[deal.to_act])
        record_shown(deal, since, before, shown)
        assert_no_leak(deal, shown)


def test_observation_fields_are_the_public_ones() -> None:
    assert set(Observation._fields) == {
        "seat",
        "phase",
        "to_act",
        "turn",
        "hand",
        "hand_sizes",
        "stock_size",
        "pile_size",
        "discard_size",
        "round_rank",
        "live",
        "legal",
        "events",
        "active",
        "exits",
    }


def test_only_the_seat_that_may_act_gets_legal_actions() -> None:
    game = Game(Ruleset.parse("classic"), 3)
    deal = Deal(game, [["7C", "9D"], ["8S", "6H"], ["QS", "6C"]], dealer=2)
    assert deal.observation(0).legal is not None
    assert deal.observation(1).legal is None and deal.observation(2).legal is None
    assert deal.observation(1).hand == ("8S", "6H")
    assert deal.observation(1).hand_sizes == (2, 2, 2)
