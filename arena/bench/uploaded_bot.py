"""The README's ``Truthful`` bot, as the pipeline bench runs it: uploaded (``--bots
uploaded``, in a sandbox like any competitor's upload) or served as an endpoint
(``--bots endpoint``). A file that imports only the SDK. ``THINK_SECONDS`` (the bench
writes a copy with ``--think-ms``) makes it await that long before each answer.
"""

import asyncio

from arena.sdk import BELIEVE, CHALLENGE, Bot, Play, Quartets, serve
from arena.sdk.helpers import best_lead_rank, truthful_play

THINK_SECONDS = 0.0


class Truthful(Bot):
    name = "truthful"

    async def act(self, obs):
        if THINK_SECONDS:
            await asyncio.sleep(THINK_SECONDS)
        legal = obs.legal
        if legal.phase == "quartets":
            return Quartets(legal.quartets)
        if legal.challenge and obs.live.count > 2:
            return CHALLENGE
        if legal.play:
            spec = legal.play
            rank = best_lead_rank(spec, obs.hand) if legal.phase == "lead" else spec.ranks[0]
            return truthful_play(spec, obs.hand, rank) or Play(obs.hand[:1], rank, 1)
        return BELIEVE if legal.believe else CHALLENGE


if __name__ == "__main__":
    serve(Truthful)
