"""Starve the other seats: children in sessions of their own (each its own scheduler
autogroup) burn CPU while the others think; the bot itself plays on.

The children are forked as the bot loads (before the SDK's threads) and start burning
when its first match starts: a bot whose children burn while it starts only delays its
own start (41 processes share its control group), which is not what the test measures.
"""

import os

from player import Plain, given

release, _released = os.pipe()
for _ in range(given("CHILDREN")):
    if os.fork() == 0:
        os.setsid()
        os.close(_released)
        os.read(release, 1)  # returns (end of file) once the bot plays
        while True:
            pass
os.close(release)


class ForkingHog(Plain):
    name = "forking-hog"

    def on_match_start(self, match):
        global _released
        if _released is not None:
            os.close(_released)
            _released = None
