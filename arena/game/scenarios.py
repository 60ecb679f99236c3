"""Rule scenarios: the conformance format of ``docs/scenarios.md``.

A scenario is a ruleset, an explicit deal, actions, and expectations. Loading is
strict: an unknown key anywhere, a card the deck does not hold (or holds fewer
times), an action by a seat that may not act, or an action after the deal is over
makes the file malformed (:class:`ScenarioError`), never silently ignored.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.engine import (
    Action,
    ActionError,
    Deal,
    Game,
    NotYourTurn,
    RulesError,
    Ruleset,
    action_from_dict,
)
from arena.engine.events import Illegal, PickedUp

TOP_KEYS = {
    "name",
    "source",
    "rules",
    "dealer",
    "hands",
    "stock",
    "hidden",
    "seed",
    "actions",
    "expect",
}
REQUIRED_KEYS = {"name", "rules", "dealer", "hands", "actions", "expect"}
EXPECT_KEYS = (
    "hands",
    "hand_sizes",
    "pile",
    "stock",
    "discard",
    "to_act",
    "phase",
    "round_rank",
    "pickups",
    "illegal",
    "exits",
    "ranking",
    "over",
)


class ScenarioError(ValueError):
    """A malformed scenario file."""


@dataclass
class Scenario:
    name: str
    path: Path | None
    ruleset: Ruleset
    dealer: int
    hands: list[list[str]]
    stock: list[str]
    hidden: str | None
    seed: int | str
    actions: list[tuple[int, Action | None]]  # None: the referee's forfeit
    expect: dict[str, Any]


@dataclass
class Outcome:
    scenario: Scenario
    #: key -> (expected, actual) for every expectation that does not hold
    differences: dict[str, tuple[Any, Any]] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return not self.differences


def load(path: Path) -> Scenario:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ScenarioError(f"cannot read: {error}") from None
    return parse(data, path)


def parse(data: Any, path: Path | None = None) -> Scenario:
    if not isinstance(data, dict):
        raise ScenarioError("a scenario is a JSON object")
    _no_unknown(data, TOP_KEYS, "scenario")
    missing = REQUIRED_KEYS - set(data)
    if missing:
        raise ScenarioError(f"missing key(s): {', '.join(sorted(missing))}")
    try:
        ruleset = Ruleset.from_dict(_object(data["rules"], "rules"))
    except RulesError as error:
        raise ScenarioError(str(error)) from None
    hands = data["hands"]
    if not isinstance(hands, list) or not all(_card_list(hand) for hand in hands):
        raise ScenarioError("hands must be a list of lists of card ids")
    stock = data.get("stock") or []
    if not _card_list(stock):
        raise ScenarioError("stock must be a list of card ids")
    hidden = data.get("hidden")
    if hidden is not None and not isinstance(hidden, str):
        raise ScenarioError("hidden must be a card id or null")
    try:
        game = Game(ruleset, len(hands))
        game.check_layout(
            [c for hand in hands for c in hand] + stock + ([hidden] if hidden else [])
        )
    except RulesError as error:
        raise ScenarioError(str(error)) from None
    dealer = data["dealer"]
    if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < len(hands):
        raise ScenarioError(f"dealer must be a seat from 0 to {len(hands) - 1}")
    actions = [_action(item, index, game) for index, item in enumerate(_list(data, "actions"))]
    expect = _object(data["expect"], "expect")
    _no_unknown(expect, set(EXPECT_KEYS), "expect")
    seed = data.get("seed", 0)
    if seed is None:
        seed = 0
    return Scenario(
        str(data["name"]), path, ruleset, dealer, hands, stock, hidden, seed, actions, expect
    )


def run(scenario: Scenario) -> Outcome:
    """Play the scenario's actions and compare every expectation."""
    game = Game(scenario.ruleset, len(scenario.hands))
    deal = Deal(
        game,
        scenario.hands,
        dealer=scenario.dealer,
        stock=scenario.stock,
        hidden=scenario.hidden,
        seed=scenario.seed,
    )
    illegal: list[list[int]] = []
    for index, (seat, action) in enumerate(scenario.actions):
        if deal.over:
            raise ScenarioError(f"action {index}: the deal is already over")
        before = len(deal.events)
        try:
            if action is None:
                deal.forfeit(seat)
            else:
                deal.apply(seat, action)
        except NotYourTurn as error:
            raise ScenarioError(f"action {index}: {error}") from None
        illegal += [[index, e.seat] for e in deal.events[before:] if isinstance(e, Illegal)]
    actual = _actual(deal, illegal)
    outcome = Outcome(scenario)
    for key in EXPECT_KEYS:
        if key in scenario.expect:
            expected = scenario.expect[key]
            if _normalise(key, expected) != _normalise(key, actual[key]):
                outcome.differences[key] = (expected, actual[key])
    return outcome


def find(paths: Iterable[Path]) -> Iterator[Path]:
    """Every ``*.json`` file named, or inside a folder named, sorted within each folder."""
    for path in paths:
        if path.is_dir():
            yield from sorted(path.rglob("*.json"))
        else:
            yield path


def _actual(deal: Deal, illegal: list[list[int]]) -> dict[str, Any]:
    return {
        "hands": [list(hand) for hand in deal.hands],
        "hand_sizes": [len(hand) for hand in deal.hands],
        "pile": deal.pile_count,
        "stock": len(deal.stock),
        "discard": list(deal.discard),
        "to_act": deal.to_act,
        "phase": deal.phase.value,
        "round_rank": deal.round_rank,
        "pickups": [[e.seat, e.count] for e in deal.events if isinstance(e, PickedUp)],
        "illegal": illegal,
        "exits": list(deal.exits),
        "ranking": [list(group) for group in deal.ranking] if deal.ranking else None,
        "over": deal.over,
    }


def _normalise(key: str, value: Any) -> Any:
    """Order does not matter within a hand, the discard, or a shared place."""
    if key == "hands" and isinstance(value, list):
        return [sorted(hand) if isinstance(hand, list) else hand for hand in value]
    if key == "discard" and isinstance(value, list):
        return sorted(value, key=str)
    if key == "ranking" and isinstance(value, list):
        return [sorted(group) if isinstance(group, list) else group for group in value]
    return value


def _action(item: Any, index: int, game: Game) -> tuple[int, Action | None]:
    if not isinstance(item, dict):
        raise ScenarioError(f"action {index}: expected an object")
    seat = item.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < game.players:
        raise ScenarioError(f"action {index}: 'seat' must be a seat from 0 to {game.players - 1}")
    body = {key: value for key, value in item.items() if key != "seat"}
    if body.get("do") == "forfeit":
        _no_unknown(body, {"do"}, f"action {index}")
        return seat, None
    try:
        action = action_from_dict(body)
        cards = getattr(action, "cards", ())
        if cards:
            game.check_layout(list(dict.fromkeys(cards)))
    except (ActionError, RulesError) as error:
        raise ScenarioError(f"action {index}: {error}") from None
    return seat, action


def _no_unknown(data: dict[str, Any], allowed: set[str], where: str) -> None:
    unknown = set(data) - allowed
    if unknown:
        raise ScenarioError(f"unknown key(s) in {where}: {', '.join(sorted(unknown))}")


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ScenarioError(f"{where} must be an object")
    return value


def _list(data: dict[str, Any], key: str) -> list[Any]:
    value = data[key]
    if not isinstance(value, list):
        raise ScenarioError(f"{key} must be a list")
    return value


def _card_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(card, str) for card in value)
