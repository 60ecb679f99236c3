"""A bot that listens on its socket and never accepts, its backlog full (it connected to
itself): a sandbox that waited on a blocking connection to it would wait for ever."""

import socket
import sys
import time

from player import Plain

path = sys.argv[sys.argv.index("--socket") + 1]
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind(path)
listener.listen(0)
held = []
for _ in range(4):  # fill the backlog: the next connection would wait for an accept
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.setblocking(False)
    try:
        client.connect(path)
    except BlockingIOError:
        break
    held.append(client)
time.sleep(120)


class FullBacklog(Plain):
    name = "full-backlog"
