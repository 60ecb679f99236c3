"""A plain legal player: the attacks built on it want nothing from the game."""

import json
from pathlib import Path

from arena.sdk import BELIEVE, CHALLENGE, Bot, Play, Quartets
from arena.sdk.helpers import best_lead_rank, truthful_play


class Plain(Bot):
    name = "plain"

    def act(self, obs):
        legal = obs.legal
        if legal.phase == "quartets":
            return Quartets(legal.quartets)
        if legal.play:
            spec = legal.play
            rank = best_lead_rank(spec, obs.hand) if legal.phase == "lead" else spec.ranks[0]
            return truthful_play(spec, obs.hand, rank) or Play(obs.hand[:1], rank, 1)
        return BELIEVE if legal.believe else CHALLENGE


def report(attack: str, outcome: object) -> None:
    print(f"ATTACK {attack}: {outcome}", flush=True)


def given(name: str):
    """A value the test gave the attack (a port, a path, a pid), from values.json."""
    return json.loads(Path(__file__).with_name("values.json").read_text())[name]
