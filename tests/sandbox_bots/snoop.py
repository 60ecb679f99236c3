import os
import sys

from sample_bots.random import RandomBot

SECRET = "__SECRET__"


def _probe() -> None:
    try:
        with open(SECRET) as handle:
            sys.stdout.write(f"secret: read {handle.read()!r}\n")
    except OSError as error:
        sys.stdout.write(f"secret: unreadable ({type(error).__name__})\n")
    leaked = [k for k in os.environ if k.startswith(("ARENA_DATABASE", "REDIS", "ARENA_DATA"))]
    sys.stdout.write(f"environment: {leaked or 'clean'}\n")
    sys.stdout.flush()


_probe()


class Snoop(RandomBot):
    name = "snoop"
