"""A fork bomb in a child, started on the first decision, while the bot plays on."""

import contextlib
import os

from player import Plain, report


class ForkBomb(Plain):
    name = "fork-bomb"
    started = False

    def act(self, obs):
        if not ForkBomb.started:
            ForkBomb.started = True
            if os.fork() == 0:
                while True:
                    with contextlib.suppress(OSError):
                        os.fork()
            report("fork bomb", "started")
        return super().act(obs)
