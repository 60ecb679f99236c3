"""``bluffer``: lies often, never believes."""

from __future__ import annotations

import random

from arena.sdk import CHALLENGE, Action, Bot, Observation, Play, Quartets, serve


class BlufferBot(Bot):
    name = "bluffer"

    #: how often it challenges instead of playing
    challenge_rate = 0.2

    def __init__(self, seed: int | str | None = None, **_: object) -> None:
        self.rng = random.Random(seed)

    def act(self, observation: Observation) -> Action:
        legal = observation.legal
        assert legal is not None
        if legal.phase == "quartets":
            return Quartets(legal.quartets)
        spec = legal.play
        if legal.challenge and (spec is None or self.rng.random() < self.challenge_rate):
            return CHALLENGE
        if spec is None:
            return CHALLENGE
        placed = self.rng.randint(1, min(2, spec.max_cards))
        cards = tuple(self.rng.sample(observation.hand, placed))
        rank = self.rng.choice(spec.ranks)
        count = placed
        if not spec.honest and placed < spec.max_count:
            count = placed + self.rng.randint(0, 1)
        return Play(cards, rank, count)


if __name__ == "__main__":
    serve(BlufferBot)
