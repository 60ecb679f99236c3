"""The Python bot SDK: a bot is a class with one method, served with one call.

    from arena.sdk import Bot, Play, CHALLENGE, serve

    class Cautious(Bot):
        def act(self, obs):
            legal = obs.legal
            if legal.challenge and obs.live.count > 2:
                return CHALLENGE
            ...

    if __name__ == "__main__":
        serve(Cautious)

``act`` receives an :class:`Observation` (the seat's hand, public events,
hand sizes, pile, round rank, live group and its :class:`LegalActions`) and
returns an action: :class:`Play`, ``CHALLENGE``, ``BELIEVE``, ``PASS`` or
:class:`Quartets`. Helpers for cards and claims are in :mod:`arena.sdk.helpers`.
"""

from arena.engine import (
    BELIEVE,
    CHALLENGE,
    JOKER,
    PASS,
    RANK_OF,
    RANKS,
    Action,
    LegalActions,
    LiveGroup,
    Observation,
    Play,
    PlaySpec,
    Quartets,
    Ruleset,
)
from arena.sdk.bot import Bot, MatchInfo, MatchResult
from arena.sdk.server import create_server, serve

__all__ = [
    "BELIEVE", "CHALLENGE", "JOKER", "PASS", "RANKS", "RANK_OF", "Action", "Bot", "LegalActions",
    "LiveGroup", "MatchInfo", "MatchResult", "Observation", "Play", "PlaySpec", "Quartets",
    "Ruleset", "create_server", "serve",
]  # fmt: skip
