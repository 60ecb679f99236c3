"""``honest``: never lies when it can avoid it; calls only provable bluffs."""

from __future__ import annotations

from arena.sdk import (
    BELIEVE,
    CHALLENGE,
    PASS,
    Action,
    Observation,
    Quartets,
    serve,
)
from arena.sdk.helpers import best_lead_rank, cheapest_lie, truthful_play
from sample_bots._common import TrackingBot


class HonestBot(TrackingBot):
    name = "honest"

    def act(self, observation: Observation) -> Action:
        tracker = self.observe(observation)
        legal = observation.legal
        assert legal is not None
        if legal.phase == "quartets":
            return Quartets(legal.quartets)
        live = observation.live
        can_call = legal.challenge and live is not None
        if can_call and live is not None and tracker.provably_false(observation, live):
            return CHALLENGE
        spec = legal.play
        if spec is not None:
            rank = (
                best_lead_rank(spec, observation.hand) if legal.phase == "lead" else spec.ranks[0]
            )
            play = truthful_play(spec, observation.hand, rank)
            if play is not None:
                return play
        if legal.can_pass:
            return PASS
        if legal.believe:
            return BELIEVE
        if spec is None:
            return CHALLENGE  # a final call with no belief allowed
        return cheapest_lie(observation.hand, spec.ranks[0])


if __name__ == "__main__":
    serve(HonestBot)
