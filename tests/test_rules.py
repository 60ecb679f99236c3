"""Rulesets: presets as docs/rules.md tabulates them, overrides, and clear errors for bad input."""

from __future__ import annotations

import pytest

from arena.engine import Game, RulesError, Ruleset
from arena.engine.rules import OPTIONS, parse_option_pairs


@pytest.mark.parametrize(
    ("preset", "expected"),
    [
        (
            "classic",
            {
                "deck": "36",
                "decks": "auto",
                "hidden_card": False,
                "max_play": None,
                "count": "free",
                "believe": "group",
                "first_player": "left_of_dealer",
                "quartets": "none",
                "protect_single_lead": False,
                "next_dealer": "rotate",
            },
        ),
        (
            "pagat",
            {
                "deck": "auto",
                "decks": 1,
                "hidden_card": True,
                "max_play": 3,
                "count": "honest",
                "believe": "none",
                "quartets": "after_pickup",
                "first_player": "left_of_dealer",
            },
        ),
        (
            "russian",
            {
                "deck": "36",
                "decks": 1,
                "first_player": "dealer",
                "max_play": "possible",
                "count": "honest",
                "believe": "table",
                "protect_single_lead": True,
                "next_dealer": "loser",
                "allow_pass": False,
            },
        ),
    ],
)
def test_presets_match_the_rules_table(preset: str, expected: dict) -> None:
    options = Ruleset.parse(preset).options
    for name, value in expected.items():
        assert getattr(options, name) == value, name
    assert options.max_turns == 2000 and options.deals == 1 and options.reveal == "group"


def test_overrides_parse_command_line_and_json_values() -> None:
    ruleset = Ruleset.parse(
        "classic",
        {
            "deck": 52,
            "pass": "true",
            "max_play": "3",
            "hand_size": "null",
            "banned_ranks": "A,k",
            "quartet_exempt": ["K"],
            "decks": "2",
            "jokers": "2",
        },
    )
    options = ruleset.options
    assert (options.deck, options.allow_pass, options.max_play, options.hand_size) == (
        "52",
        True,
        3,
        None,
    )
    assert options.banned_ranks == ("K", "A") and options.quartet_exempt == ("K",)
    assert (options.decks, options.jokers) == (2, 2)


def test_a_ruleset_round_trips_through_its_dict() -> None:
    ruleset = Ruleset.parse("russian", {"pass": True, "banned_ranks": ["K"], "deck": "52"})
    data = ruleset.to_dict()
    assert data == {
        "preset": "russian",
        "options": {"deck": "52", "pass": True, "banned_ranks": ["K"]},
    }
    assert Ruleset.from_dict(data) == ruleset
    assert str(Ruleset.parse("classic")) == "classic"


@pytest.mark.parametrize(
    ("preset", "overrides", "message"),
    [
        ("uno", {}, "unknown preset 'uno'"),
        ("classic", {"colour": "red"}, "unknown option 'colour'"),
        ("classic", {"deck": "40"}, "option deck: expected one of 36, 52, auto"),
        ("classic", {"decks": 3}, "option decks: expected 1, 2 or auto"),
        ("classic", {"jokers": 1}, "option jokers: expected 0 or 2"),
        ("classic", {"hidden_card": "maybe"}, "option hidden_card: expected true or false"),
        ("classic", {"hand_size": 0}, "option hand_size: expected a whole number of at least 1"),
        ("classic", {"max_play": "lots"}, "option max_play: expected a whole number"),
        ("classic", {"count": "exact"}, "option count: expected one of free, honest"),
        ("classic", {"banned_ranks": ["X"]}, "option banned_ranks: unknown rank 'X'"),
        ("classic", {"deals": True}, "option deals: expected a whole number"),
        ("classic", {"banned_ranks": ["6", "7", "8", "9", "T", "J", "Q", "K", "A"]}, "bans every"),
    ],
)
def test_bad_input_gets_a_clear_error(preset: str, overrides: dict, message: str) -> None:
    with pytest.raises(RulesError, match=message.replace("(", r"\(")):
        Ruleset.parse(preset, overrides)


def test_every_option_has_a_parser_and_a_preset_value() -> None:
    classic = Ruleset.parse("classic").options
    for name, (attribute, parser) in OPTIONS.items():
        assert hasattr(classic, attribute), name
        assert callable(parser)


def test_option_pairs_from_the_command_line() -> None:
    assert parse_option_pairs(["deck=52", " pass = true "]) == {"deck": "52", "pass": "true"}
    with pytest.raises(RulesError, match="expected key=value"):
        parse_option_pairs(["deck"])


@pytest.mark.parametrize(
    ("options", "players", "deck_size", "decks", "cards"),
    [
        ({}, 3, 36, 1, 36),
        ({}, 6, 36, 2, 72),
        ({"deck": "auto"}, 3, 36, 1, 36),
        ({"deck": "auto"}, 4, 52, 1, 52),
        ({"deck": "52", "jokers": 2}, 4, 52, 1, 54),
        ({"deck": "52", "decks": 2, "jokers": 2}, 4, 52, 2, 106),
    ],
)
def test_the_deck_follows_deck_decks_and_jokers(options, players, deck_size, decks, cards) -> None:
    game = Game(Ruleset.parse("classic", options), players)
    assert (game.deck_size, game.decks, len(game.deck)) == (deck_size, decks, cards)


@pytest.mark.parametrize(
    ("preset", "options", "cap"),
    [
        ("classic", {}, None),
        ("pagat", {}, 3),
        ("russian", {}, 4),
        ("russian", {"jokers": 2}, 6),
        ("russian", {"decks": 2}, 8),
    ],
)
def test_max_play_possible_counts_copies_and_jokers(preset, options, cap) -> None:
    assert Game(Ruleset.parse(preset, options), 3).max_play == cap


def test_a_table_too_large_for_the_deck_is_refused() -> None:
    with pytest.raises(RulesError, match="players"):
        Game(Ruleset.parse("classic"), 13)
    with pytest.raises(RulesError, match="cannot deal"):
        Game(Ruleset.parse("classic", {"hand_size": 10}), 4)
