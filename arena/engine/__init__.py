"""The rules engine: pure and deterministic, no I/O.

``Ruleset`` (preset + options) -> ``Game`` (resolved for N players) -> ``Deal``
(one deal's state: legal actions, apply, observations) and ``Match`` (several
deals, dealer rotation, losses and the final ranking).
"""

from arena.engine.actions import (
    BELIEVE,
    CHALLENGE,
    PASS,
    Action,
    ActionError,
    Believe,
    Challenge,
    Pass,
    Play,
    Quartets,
    action_from_dict,
    parse_action,
)
from arena.engine.cards import JOKER, RANK_OF, RANKS, SUITS, CardError
from arena.engine.deal import Deal, DealIsOver, NotYourTurn
from arena.engine.game import Game
from arena.engine.legal import LegalActions, Phase, PlaySpec
from arena.engine.observation import LiveGroup, Observation
from arena.engine.rules import PRESETS, RulesError, Ruleset

__all__ = [
    "BELIEVE", "CHALLENGE", "JOKER", "PASS", "PRESETS", "RANKS", "RANK_OF", "SUITS", "Action",
    "ActionError", "Believe", "CardError", "Challenge", "Deal", "DealIsOver", "Game",
    "LegalActions", "LiveGroup", "NotYourTurn", "Observation", "Pass", "Phase", "Play",
    "PlaySpec", "Quartets", "Ruleset", "RulesError", "action_from_dict", "parse_action",
]  # fmt: skip
