"""Built-in in-process policies: a policy maps an observation to an action."""

from __future__ import annotations

import random
from typing import Protocol

from arena.engine.actions import BELIEVE, CHALLENGE, PASS, Action, Play, Quartets
from arena.engine.observation import Observation


class Policy(Protocol):
    def act(self, observation: Observation) -> Action: ...


class RandomLegal:
    """Picks uniformly among the legal action kinds, then a random legal instance of it.

    A play takes a random number of random cards from the hand and claims a random
    allowed rank; with a free count it claims the true count or one more.
    """

    def __init__(self, seed: int | str | None = None) -> None:
        self.rng = random.Random(seed)

    def act(self, observation: Observation) -> Action:
        legal = observation.legal
        assert legal is not None, "asked to act without legal actions"
        kinds = legal.kinds
        kind = kinds[int(self.rng.random() * len(kinds))] if len(kinds) > 1 else kinds[0]
        if kind == "play":
            return self._play(observation)
        if kind == "challenge":
            return CHALLENGE
        if kind == "believe":
            return BELIEVE
        if kind == "pass":
            return PASS
        return Quartets(tuple(r for r in legal.quartets if self.rng.random() < 0.5))

    def _play(self, observation: Observation) -> Play:
        assert observation.legal is not None and observation.legal.play is not None
        spec = observation.legal.play
        rng = self.rng
        hand = observation.hand
        placed = 1 + int(rng.random() * spec.max_cards)
        cards = rng.sample(hand, placed) if placed > 1 else (hand[int(rng.random() * len(hand))],)
        ranks = spec.ranks
        rank = ranks[int(rng.random() * len(ranks))] if len(ranks) > 1 else ranks[0]
        count = placed
        if not spec.honest and rng.random() < 0.2 and placed < spec.max_count:
            count = placed + 1
        return Play(tuple(cards), rank, count)
