"""Protocol messages round-trip the engine's observations, events and actions exactly."""

from __future__ import annotations

import random

import pytest
from hypothesis import given

from arena import protocol
from arena.engine import Deal, Game, Ruleset
from arena.engine.events import DealOver, Discarded
from arena.policies import RandomLegal
from arena.v1 import player_pb2 as pb
from tests.support.engine import Recorder, actions, random_game


@pytest.mark.parametrize("seed", range(40))
def test_observations_round_trip_through_decision_requests(seed: int) -> None:
    rng = random.Random(seed)
    game = random_game(rng)
    hands, stock, hidden = game.shuffled_layout(seed, 0)
    deal = Deal(game, hands, dealer=0, stock=stock, hidden=hidden, seed=seed)
    recorder, policies = Recorder(rng), [RandomLegal(s) for s in range(game.players)]
    cursors = [0] * game.players
    while not deal.over:
        seat = deal.to_act
        observation = deal.observation(seat, cursors[seat])
        cursors[seat] = len(deal.events)
        message = protocol.request_from_observation(observation, 7, 0, 1.5)
        wire = pb.DecisionRequest.FromString(message.SerializeToString())
        assert protocol.observation_from_request(wire) == observation
        recorder.step(deal, policies[seat])
    for event in deal.events:
        assert protocol.event_from_proto(protocol.event_to_proto(event)) == event


def test_events_with_optional_and_nested_fields() -> None:
    for event in (
        Discarded(None, "passed_out", (), 3),
        Discarded(2, "quartets", ("7C",) * 4, 0),
        DealOver(((0,), (1, 2), (3,)), "max_turns"),
    ):
        assert protocol.event_from_proto(protocol.event_to_proto(event)) == event


def test_every_seat_gets_the_same_events_however_often_they_are_built() -> None:
    """Requests share each public event's message (built once): sending it to one seat,
    or changing one request, never changes what another seat receives."""
    game = Game(Ruleset.parse("classic"), 4)
    hands, stock, hidden = game.shuffled_layout(3, 0)
    deal = Deal(game, hands, dealer=0, stock=stock, hidden=hidden, seed=3)
    policy = RandomLegal(0)
    while len(deal.events) < 6 and not deal.over:
        deal.apply(deal.to_act, policy.act(deal.observation(deal.to_act, 0)))
    observations = [deal.observation(seat, 0) for seat in range(game.players)]
    first = [protocol.request_from_observation(o, 1, 0, 1.0) for o in observations]
    first[0].events[0].Clear()
    again = [protocol.request_from_observation(o, 1, 0, 1.0) for o in observations]
    for observation, message in zip(observations, again, strict=True):
        events = tuple(protocol.event_from_proto(e) for e in message.events)
        assert events == observation.events
    kinds = {type(event) for event in deal.events}
    assert len(kinds) > 1, "events of several kinds (equal tuples of different kinds stay apart)"


@given(actions)
def test_actions_round_trip_through_decisions(action) -> None:
    message = protocol.decision_from_action(action, 3)
    wire = pb.Decision.FromString(message.SerializeToString())
    assert wire.request_id == 3
    assert protocol.action_from_decision(wire) == action


def test_an_empty_decision_is_a_protocol_error() -> None:
    with pytest.raises(protocol.ProtocolError):
        protocol.action_from_decision(pb.Decision(request_id=1))


def test_rulesets_round_trip() -> None:
    ruleset = Ruleset.parse("pagat", {"pass": True, "banned_ranks": ["A"]})
    assert protocol.ruleset_from_proto(protocol.ruleset_to_proto(ruleset)) == ruleset


def test_an_unset_count_claims_the_cards_placed_and_an_explicit_zero_claims_zero() -> None:
    unset = pb.Decision(request_id=1, play=pb.PlayCards(cards=["7C", "8D"], rank="7"))
    zero = pb.Decision(request_id=1, play=pb.PlayCards(cards=["7C", "8D"], rank="7", count=0))
    assert protocol.action_from_decision(unset).count == 2
    assert protocol.action_from_decision(zero).count == 0
    deal = Deal(Game(Ruleset.parse("classic"), 2), [["7C", "8D"], ["9S"]], dealer=1)
    deal.apply(0, protocol.action_from_decision(zero))
    assert deal.events[-1].kind == "illegal" and deal.events[-1].reason == "a claimed count of zero"
