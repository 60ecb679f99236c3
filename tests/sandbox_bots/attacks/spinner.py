"""Compute between requests: a thread spins from the moment the bot is loaded."""

import threading

from player import Plain


def spin() -> None:
    while True:
        pass


threading.Thread(target=spin, daemon=True).start()


class Spinner(Plain):
    name = "spinner"
