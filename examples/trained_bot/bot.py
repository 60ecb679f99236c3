"""A bot that plays the policy ``examples/train_policy.py`` saved beside it (policy.npz).

    python -m arena.sdk.run examples/trained_bot/bot.py --port 50051    # serve it
    arena play examples/trained_bot/bot.py sample:random sample:honest --games 500
    arena bot submit trained --path examples/trained_bot                  # upload it

It needs the SDK and NumPy (both in the sandbox that runs uploaded bots) and
``arena.rl.encoding``, which builds from its observations the vector the policy
learned on (docs/learning.md).
"""

from pathlib import Path

from arena.engine import Game
from arena.rl import encoding, linear
from arena.sdk import Bot, serve

WEIGHTS = linear.load(Path(__file__).with_name("policy.npz"))


class TrainedBot(Bot):
    name = "trained"

    def on_match_start(self, match):
        layout = encoding.Layout.of(Game(match.ruleset, len(match.players)))
        self.player = linear.Player(WEIGHTS, layout)

    def act(self, observation):
        return self.player.act(observation)


if __name__ == "__main__":
    serve(TrainedBot)
