"""A fork bomb in a child that waits for the bot to be listening, while the bot plays on.

(The child is forked when the bot's file loads, before gRPC starts any thread.)"""

import contextlib
import os
import time

from player import Plain, report

if os.fork() == 0:
    time.sleep(0.5)
    while True:
        with contextlib.suppress(OSError):
            os.fork()
report("fork bomb", "started")


class ForkBomb(Plain):
    name = "fork-bomb"
