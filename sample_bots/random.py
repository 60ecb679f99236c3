"""``random``: a uniformly random legal action kind, then a random instance of it."""

from __future__ import annotations

from arena.policies import RandomLegal
from arena.sdk import Action, Bot, Observation, serve


class RandomBot(Bot):
    name = "random"

    def __init__(self, seed: int | str | None = None, **_: object) -> None:
        self.policy = RandomLegal(seed)

    def act(self, observation: Observation) -> Action:
        return self.policy.act(observation)


if __name__ == "__main__":
    serve(RandomBot)
