"""Starve the other seats: children in sessions of their own (each its own scheduler
autogroup) burn CPU while the others think; the bot itself plays on."""

import os

from player import Plain, given

for _ in range(given("CHILDREN")):
    if os.fork() == 0:
        os.setsid()
        while True:
            pass


class ForkingHog(Plain):
    name = "forking-hog"
