"""A plain legal player that says what it is doing on stderr (its owner reads it)."""

import sys

from arena.sdk import BELIEVE, CHALLENGE, Bot, Play, Quartets
from arena.sdk.helpers import best_lead_rank, truthful_play


class Talker(Bot):
    name = "talker"

    def act(self, obs):
        print(f"talker: {len(obs.hand)} cards in hand", file=sys.stderr, flush=True)
        legal = obs.legal
        if legal.phase == "quartets":
            return Quartets(legal.quartets)
        if legal.play:
            spec = legal.play
            rank = best_lead_rank(spec, obs.hand) if legal.phase == "lead" else spec.ranks[0]
            return truthful_play(spec, obs.hand, rank) or Play(obs.hand[:1], rank, 1)
        return BELIEVE if legal.believe else CHALLENGE
