"""Built-in in-process policies: a policy maps an observation to an action."""

from __future__ import annotations

import random
from typing import Any, Final, Protocol

from arena.engine import draws, records
from arena.engine.actions import BELIEVE, CHALLENGE, PASS, Action, Play, Quartets
from arena.engine.legal import Phase, PlaySpec, kinds_allowed
from arena.engine.observation import Observation

QUARTETS: Final = Phase.QUARTETS

# compiled (arena/native.py), a final name is read directly, an imported one looked up
_PLAY: Final = Play
_CHALLENGE: Final = CHALLENGE
_BELIEVE: Final = BELIEVE
_PASS: Final = PASS
_new: Final = records.new  # a named tuple from its fields (arena/engine/records.py)


class Policy(Protocol):
    def act(self, observation: Observation) -> Action: ...


class RandomLegal:
    """Picks uniformly among the legal action kinds, then a random legal instance of it.

    A play takes a random number of random cards from the hand and claims a random
    allowed rank; with a free count it claims the true count or one more.
    """

    def __init__(self, seed: int | float | str | None = None) -> None:
        self.rng = random.Random(seed)
        # bound once: a method lookup at every draw is slow; and a draw is scaled by a
        # float (compiled, float times int is boxed; the product is the same)
        self._random = self.rng.random

    def __deepcopy__(self, memo: dict[int, Any]) -> RandomLegal:
        """A copy that goes on drawing as this one would (compiled, arena/native.py, the
        policy has no ``__dict__`` for copy to fill in)."""
        twin = RandomLegal()
        twin.rng.setstate(self.rng.getstate())
        return twin

    def act(self, observation: Observation) -> Action:
        legal = observation.legal
        assert legal is not None, "asked to act without legal actions"
        draw = self._random
        _, phase, play, challenge, believe, can_pass, quartets = legal
        kinds = kinds_allowed(play is not None, challenge, believe, can_pass, phase == QUARTETS)
        kind = kinds[int(draw() * float(len(kinds)))] if len(kinds) > 1 else kinds[0]
        if kind == "play":
            assert play is not None
            return self._play(play, observation.hand)
        if kind == "challenge":
            return _CHALLENGE
        if kind == "believe":
            return _BELIEVE
        if kind == "pass":
            return _PASS
        return Quartets(tuple(r for r in quartets if draw() < 0.5))

    def _play(self, spec: PlaySpec, hand: tuple[str, ...]) -> Play:
        draw = self._random
        ranks, max_cards, honest, max_count = spec
        placed = 1 + int(draw() * float(max_cards))
        cards = (
            tuple(draws.sample(self.rng, hand, placed))
            if placed > 1
            else (hand[int(draw() * float(len(hand)))],)
        )
        rank = ranks[int(draw() * float(len(ranks)))] if len(ranks) > 1 else ranks[0]
        count = placed
        if not honest and draw() < 0.2 and placed < max_count:
            count = placed + 1
        return _new(_PLAY, (cards, rank, count))
