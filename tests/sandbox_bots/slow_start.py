import time

from arena.sdk import Bot

time.sleep(120)  # never starts in time


class SlowStart(Bot):
    name = "slow-start"
