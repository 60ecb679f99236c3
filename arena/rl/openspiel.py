"""The game in OpenSpiel: ``import arena.rl.openspiel`` registers ``arena_verish``
(docs/learning.md).

``pyspiel.load_game("arena_verish", {"players": 4, "preset": "classic",
"options": "{}"})``; ``options`` is a JSON object of docs/rules.md's option
overrides. Chance is explicit: each deal begins with one chance node per card of the
deck, each choosing which of the cards not yet placed comes next in the shuffled deck
(uniformly); the engine then deals that deck as it deals a shuffled one. Player
actions and their legality are :mod:`arena.rl.encoding`'s sub-decisions, so one engine
decision may take several OpenSpiel moves by the same player. The one card shown under
``reveal: one`` is drawn by the engine from a seed made of the deal's chance outcomes.
Returns are the places' rewards of :mod:`arena.rl.aec` (+1 first, -1 last).

The observation tensor is :func:`arena.rl.encoding.observe`'s vector; the
information-state tensor is the same vector (its history is a window, so it does not
recall everything), while the information-state string does: the seat's hands as
dealt and every public event of the match, with its decision under way.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pyspiel

from arena.engine import Deal, Game, Ruleset
from arena.engine.match import Match
from arena.rl import encoding
from arena.rl.aec import place_rewards

NAME = "arena_verish"
MIN_PLAYERS, MAX_PLAYERS = 2, 12
DEFAULTS = {"players": 4, "preset": "classic", "options": "{}"}

_GAME_TYPE = pyspiel.GameType(
    short_name=NAME,
    long_name="Verish' Ne Verish' (Arena)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=MIN_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULTS,
)


def ruleset_from(params: dict[str, Any]) -> tuple[Ruleset, int]:
    options = json.loads(params.get("options", "{}") or "{}")
    if not isinstance(options, dict):
        raise ValueError("options must be a JSON object of docs/rules.md's options")
    return Ruleset.parse(params.get("preset", "classic"), options), int(params.get("players", 4))


class VerishGame(pyspiel.Game):
    """A match of the ruleset in ``params`` for ``players`` seats."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**DEFAULTS, **(params or {})}
        ruleset, players = ruleset_from(params)
        self.engine = Game(ruleset, players)
        self.layout = encoding.Layout.of(self.engine)
        options = self.engine.options
        deck = len(self.engine.deck)
        per_deal = deck + options.max_turns * (deck + 2)
        info = pyspiel.GameInfo(
            num_distinct_actions=encoding.ACTIONS,
            max_chance_outcomes=deck,
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=options.deals * per_deal,
        )
        super().__init__(_GAME_TYPE, info, params)

    def new_initial_state(self) -> VerishState:
        return VerishState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> VerishObserver:
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return VerishObserver(self.layout, perfect_recall)


class VerishState(pyspiel.State):
    def __init__(self, game: VerishGame) -> None:
        super().__init__(game)
        self.engine = game.engine
        self.match = Match(self.engine, seed=NAME)
        self.order: list[int] = []  # the current deal's deck so far, as deck positions
        self.deal: Deal | None = None  # None while the chance nodes deal the cards
        self.turn = encoding.Turn()
        self.dealt: list[tuple[str, ...]] = [() for _ in range(game.engine.players)]
        self.public: list[str] = []  # every public event of the match, as text

    def current_player(self) -> int:
        if self.match.over:
            return pyspiel.PlayerId.TERMINAL
        if self.deal is None or self.deal.to_act is None:
            return pyspiel.PlayerId.CHANCE
        return self.deal.to_act

    def _legal_actions(self, player: int) -> list[int]:
        assert self.deal is not None, "the players act once the deal is dealt"
        return np.flatnonzero(encoding.mask(*encoding.decision(self.deal), self.turn)).tolist()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = sorted(set(range(len(self.engine.deck))) - set(self.order))
        return [(position, 1.0 / len(left)) for position in left]

    def _apply_action(self, action: int) -> None:
        if self.deal is None:
            self.order.append(action)
            if len(self.order) == len(self.engine.deck):
                self._deal()
            return
        decided = encoding.advance(*encoding.decision(self.deal), self.turn, action)
        if decided is None:
            return
        before = len(self.deal.events)
        assert self.deal.to_act is not None  # it decided: it was its turn
        self.deal.apply(self.deal.to_act, decided)
        self.turn = encoding.Turn()
        self.public.extend(str(event) for event in self.deal.events[before:])
        if self.deal.over:
            self.match.record(self.deal)
            self.deal, self.order = None, []

    def _deal(self) -> None:
        cards = [self.engine.deck[position] for position in self.order]
        seed = f"{NAME}/{len(self.match.results)}/" + ",".join(map(str, self.order))
        deal = self.deal = self.match.next_deal(cards, seed)
        self.dealt = [tuple(hand) for hand in deal.dealt]
        self.public.extend(str(event) for event in deal.events)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deck {len(self.order)}: {self.engine.deck[action]} (card {action} of the deck)"
        return action_name(action)

    def is_terminal(self) -> bool:
        return self.match.over

    def returns(self) -> list[float]:
        if not self.match.over:
            return [0.0] * self.engine.players
        return place_rewards(self.match)

    def __str__(self) -> str:
        if self.deal is None:
            return f"dealing: {len(self.order)} of {len(self.engine.deck)} cards placed"
        from arena.rl.render import table_text

        return table_text(self.deal, self.match.losses, self.turn)


def action_name(action: int) -> str:
    """``add 7``, ``claim Q``, ``count 3``, ``challenge``, ``believe``, ``pass``, ``done``."""
    if action < encoding.CLAIM:
        return f"add {encoding.CARD_RANKS[action]}"
    if action < encoding.COUNT:
        return f"claim {encoding.CARD_RANKS[action - encoding.CLAIM]}"
    if action < encoding.CHALLENGE_ACTION:
        return f"count {action - encoding.COUNT + 1}"
    return ("challenge", "believe", "pass", "done")[action - encoding.CHALLENGE_ACTION]


class VerishObserver:
    """OpenSpiel's PyObserver: ``tensor`` (and ``dict``) set from a state for a player."""

    def __init__(self, layout: encoding.Layout, perfect_recall: bool) -> None:
        self.layout, self.perfect_recall = layout, perfect_recall
        self.tensor = np.zeros(layout.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: VerishState, player: int) -> None:
        if state.deal is None:
            self.tensor.fill(0)
            return
        turn = state.turn if state.deal.to_act == player else None
        self.tensor[:] = encoding.observe(state.deal, player, turn, self.layout)

    def string_from(self, state: VerishState, player: int) -> str:
        if state.deal is None:
            head = f"seat {player}; deal {len(state.match.results)} being dealt"
        else:
            head = f"seat {player}; hand {' '.join(sorted(state.deal.hands[player]))}"
        turn = state.turn if state.deal is not None and state.deal.to_act == player else None
        if turn is not None:
            head += f"; deciding {turn.cards} {turn.claim} {turn.quartets}"
        if not self.perfect_recall:
            window = state.public[-encoding.HISTORY :]
            return f"{head}; losses {state.match.losses}; recent {window}"
        return f"{head}; dealt {' '.join(state.dealt[player])}; events {state.public}"


pyspiel.register_game(_GAME_TYPE, VerishGame)
