"""Use more memory than allowed by spreading it over children (each under the limit)."""

import os

from player import Plain, given, report

CHUNK = given("CHUNK")
children = []
for _ in range(4):
    pid = os.fork()
    if pid == 0:
        hoard = bytearray(CHUNK)
        for at in range(0, CHUNK, 4096):
            hoard[at] = 1
        os.read(os.open("/dev/zero", os.O_RDONLY), 1)
        import time

        time.sleep(60)
        os._exit(0)
    children.append(pid)
report("memory", f"{len(children)} children")


class Memory(Plain):
    name = "memory"
