"""A bot whose socket exists well before anything accepts on it: its module binds the
socket's path, holds it for a while without listening, then lets the SDK's server take
it. A sandbox that called the bot ready once its socket existed handed the seat to a
referee whose first connections were refused (charged to the bot as unreachable)."""

import os
import socket
import sys
import time

from player import Plain

path = sys.argv[sys.argv.index("--socket") + 1]
early = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
early.bind(path)  # the socket exists; a connection to it is refused: nothing listens
time.sleep(1.5)
early.close()
os.unlink(path)


class LateListener(Plain):
    name = "late-listener"
