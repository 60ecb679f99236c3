"""The game side of a bench's attack bot: it plays legally and simply (the attack wants
nothing from the game). Copied beside the attack's ``bot.py``, which subclasses it."""

from arena.sdk import BELIEVE, Bot, Play, Quartets


class Plain(Bot):
    name = "plain"

    def act(self, obs):
        legal = obs.legal
        if legal.phase == "quartets":
            return Quartets(legal.quartets)
        if legal.play:
            return Play(obs.hand[:1], legal.play.ranks[0], 1)
        return BELIEVE
