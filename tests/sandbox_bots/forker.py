import subprocess

from sample_bots.random import RandomBot


class Forker(RandomBot):
    """Leaves a daemon behind, in a session of its own, on its first decision.

    subprocess forks and execs in C, so nothing runs between fork and exec in this
    threaded (gRPC) process."""

    name = "forker"
    spawned = False

    def act(self, observation):
        if not Forker.spawned:
            Forker.spawned = True
            subprocess.Popen(
                ["sh", "-c", "echo daemon $$; exec sleep 1000"], start_new_session=True
            )
        return super().act(observation)
