"""Storage in the state of shared pages: a writer reads one byte of some pages of a file
every sandbox can read (a 1) and leaves the others (a 0); a reader, in a sandbox made
after the writer's is gone, times a one-byte read of each page: a page the writer read
may still be in the CPU's caches, or marked in the kernel's lists, and read faster.
Run inside a sandbox as ``bot.py`` beside ``values.json`` (ROLE, BITS, FILE, FIRST,
STRIDE: the pages are FIRST, FIRST + STRIDE, …)."""

import json
import os
import time
from pathlib import Path

from plain import Plain  # type: ignore[import-not-found]  # copied beside it

VALUES = json.loads(Path(__file__).with_name("values.json").read_text())
PAGE = 4096


def offsets() -> list[int]:
    first, stride = VALUES["FIRST"], VALUES["STRIDE"]
    return [(first + index * stride) * PAGE for index in range(len(VALUES["BITS"]))]


def write(fd: int) -> None:
    for offset, bit in zip(offsets(), VALUES["BITS"], strict=True):
        if bit == "1":
            os.pread(fd, 1, offset)


def read(fd: int) -> None:
    took = []
    for offset in offsets():
        began = time.perf_counter_ns()
        os.pread(fd, 1, offset)
        took.append(time.perf_counter_ns() - began)
    print("ATTACK took " + json.dumps(took), flush=True)


fd = os.open(VALUES["FILE"], os.O_RDONLY)
write(fd) if VALUES["ROLE"] == "write" else read(fd)
print("ATTACK done", flush=True)


class PageState(Plain):
    name = "page-state"
