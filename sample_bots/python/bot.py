from arena.sdk import BELIEVE, CHALLENGE, Bot, Play, Quartets, serve
from arena.sdk.helpers import best_lead_rank, truthful_play


class Truthful(Bot):
    name = "truthful"

    def act(self, obs):
        legal = obs.legal
        if legal.phase == "quartets":
            return Quartets(legal.quartets)  # discard every four of a kind
        if legal.challenge and obs.live.count > 2:
            return CHALLENGE  # big claims are suspicious
        if legal.play:
            spec = legal.play
            rank = best_lead_rank(spec, obs.hand) if legal.phase == "lead" else spec.ranks[0]
            return truthful_play(spec, obs.hand, rank) or Play(obs.hand[:1], rank, 1)
        return BELIEVE if legal.believe else CHALLENGE  # the final call


if __name__ == "__main__":
    serve(Truthful)
