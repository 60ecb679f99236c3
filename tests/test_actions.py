"""Actions and events: one type each, round-tripping to text and JSON."""

from __future__ import annotations

import pytest
from hypothesis import given

from arena.engine import (
    BELIEVE,
    CHALLENGE,
    PASS,
    ActionError,
    Play,
    Quartets,
    action_from_dict,
    parse_action,
)
from arena.engine.events import EVENT_TYPES, Played, Revealed, event_from_dict, event_to_dict
from tests.support.engine import actions


@given(actions)
def test_text_round_trip(action) -> None:
    parsed = parse_action(str(action))
    assert parsed == action and type(parsed) is type(action)


@given(actions)
def test_json_round_trip(action) -> None:
    parsed = action_from_dict(action.to_dict())
    assert parsed == action and type(parsed) is type(action)


def test_an_action_equals_only_an_action_of_its_own_kind() -> None:
    """Field-less tuples all equal ``()``: as plain NamedTuples, challenge, believe and
    pass were one value (a set of the three had one element)."""
    assert len({CHALLENGE, BELIEVE, PASS}) == 3
    assert CHALLENGE != BELIEVE and BELIEVE != PASS and PASS != ()
    assert parse_action("believe") != CHALLENGE
    assert Quartets(("7",)) != (("7",),)
    assert Play.of(["7C"], "7") == Play(("7C",), "7", 1)
    assert hash(Play.of(["7C"], "7")) == hash(Play(("7C",), "7", 1))


def test_text_forms() -> None:
    assert str(Play.of(["7C", "9D"], "7")) == "play 7C,9D as 7"
    assert str(Play.of(["7C"], "7", 2)) == "play 7C as 7x2"
    assert parse_action("quartets -") == Quartets(())
    assert action_from_dict({"do": "play", "cards": [], "rank": "7"}) == Play((), "7", 0)


@pytest.mark.parametrize(
    "data",
    [
        {"do": "fold"},
        {"do": "pass", "x": 1},
        {"do": "play", "cards": "7C", "rank": "7"},
        {"do": "play", "cards": ["7C"]},
        {"do": "play", "cards": ["7C"], "rank": "7", "count": "2"},
        {"do": "quartets"},
    ],
)
def test_bad_json_is_an_error(data) -> None:
    with pytest.raises(ActionError):
        action_from_dict(data)


@pytest.mark.parametrize("text", ["fold", "play 7C", "play 7C as 7xx", "challenge now"])
def test_bad_text_is_an_error(text: str) -> None:
    with pytest.raises(ActionError):
        parse_action(text)


def test_events_round_trip_through_json() -> None:
    for event in (Played(1, 2, "7", 3), Revealed(0, ("7C", "JK"), True)):
        data = event_to_dict(event)
        assert data["kind"] == event.kind
        assert event_from_dict(data) == event
    assert len(EVENT_TYPES) == 12
