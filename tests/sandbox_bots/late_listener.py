"""A bot whose socket exists well before anything accepts on it: its module binds the
socket's path, holds it for a while without listening, then lets the SDK's server take
it. A sandbox that called the bot ready once its socket existed handed the seat to a
referee whose first connections were refused (charged to the bot as unreachable)."""

import os
import socket
import sys
import time

from arena.sdk import BELIEVE, CHALLENGE, Bot, Play, Quartets

path = sys.argv[sys.argv.index("--socket") + 1]
early = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
early.bind(path)  # the socket exists; a connection to it is refused: nothing listens
time.sleep(1.5)
early.close()
os.unlink(path)


class LateListener(Bot):
    name = "late-listener"

    def act(self, obs):
        legal = obs.legal
        if legal.phase == "quartets":
            return Quartets(legal.quartets)
        if legal.play:
            return Play(obs.hand[:1], legal.play.ranks[0], 1)
        return BELIEVE if legal.believe else CHALLENGE
