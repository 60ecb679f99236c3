"""``counter``: tracks every card it has seen, estimates how likely a claim is true,
and calls and bluffs by that estimate."""

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
from arena.sdk.helpers import CardTracker, best_lead_rank, cheapest_lie, truthful_play
from sample_bots._common import TrackingBot


class CounterBot(TrackingBot):
    name = "counter"

    #: challenge when a claim is less likely than this (more eager when the pile is big)
    challenge_below = 0.30
    #: believe (when allowed) when a claim is more likely than this and the pile is small
    believe_above = 0.75

    def act(self, observation: Observation) -> Action:
        tracker = self.observe(observation)
        legal = observation.legal
        assert legal is not None
        if legal.phase == "quartets":
            return Quartets(legal.quartets)
        live = observation.live
        if legal.challenge and live is not None:
            call = self._call(observation, tracker)
            if call is not None:
                return call
        spec = legal.play
        if spec is None:  # a final call: pick the likelier side
            true = tracker.probability_true(observation, live) if live else 0.0
            return BELIEVE if legal.believe and true >= 0.5 else CHALLENGE
        rank = best_lead_rank(spec, observation.hand) if legal.phase == "lead" else spec.ranks[0]
        play = truthful_play(spec, observation.hand, rank)
        if play is not None:
            return play
        if legal.can_pass:
            return PASS
        if legal.believe and live is not None:
            return BELIEVE
        return cheapest_lie(observation.hand, rank)

    def _call(self, observation: Observation, tracker: CardTracker) -> Action | None:
        live = observation.live
        legal = observation.legal
        assert live is not None and legal is not None  # asked only when a call is open
        true = tracker.probability_true(observation, live)
        eagerness = min(0.25, observation.pile_size / 40)
        if true < self.challenge_below + eagerness:
            return CHALLENGE
        if legal.believe and true > self.believe_above and observation.pile_size <= 4:
            return BELIEVE
        return None


if __name__ == "__main__":
    serve(CounterBot)
