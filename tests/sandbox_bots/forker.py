import os
import sys

from sample_bots.random import RandomBot


class Forker(RandomBot):
    """Leaves a daemon behind (a child in its own session) on its first decision."""

    name = "forker"
    spawned = False

    def act(self, observation):
        if not Forker.spawned:
            Forker.spawned = True
            child = os.fork()
            if child == 0:
                os.setsid()
                if os.fork() == 0:
                    sys.stdout.write(f"daemon {os.getpid()}\n")
                    sys.stdout.flush()
                    os.execvp("sleep", ["sleep", "1000"])
                os._exit(0)
            os.waitpid(child, 0)
        return super().act(observation)
