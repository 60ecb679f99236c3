import sys

from arena.sdk import Bot


class Chatty(Bot):
    name = "chatty"

    def act(self, observation):
        for _ in range(100_000):  # 10 MB of noise: over the output limit
            sys.stderr.write("x" * 99 + "\n")
        sys.stderr.flush()
