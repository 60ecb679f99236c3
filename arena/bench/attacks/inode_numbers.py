"""A live channel through inode numbers: pipes take theirs from one host-wide counter,
in batches of 1,024 per CPU. In each time slot the sender takes ``BATCHES`` batches
(makes and closes that many pipes) for a 1 and nothing for a 0; the receiver, in
another sandbox at the same time, ends each slot by making pipes until its own CPU's
batch runs out and reads where the counter stands: how far it moved since the last
slot (in batches, its own left out). Both agree on the slots by the clock they share.
Run inside a sandbox as ``bot.py`` beside ``values.json`` (ROLE, BITS, START, SLOT, BATCHES)."""

import json
import os
import threading
import time
from pathlib import Path

from plain import Plain  # type: ignore[import-not-found]  # copied beside it

BATCH = 1024
VALUES = json.loads(Path(__file__).with_name("values.json").read_text())


def pipe_number() -> int:
    """A fresh pipe's inode number (the pipe closed again)."""
    read, write = os.pipe()
    number = os.fstat(read).st_ino
    os.close(read)
    os.close(write)
    return number


def counter() -> int:
    """Where the host-wide counter stands, in batches: the receiver (on one CPU) makes
    pipes until its CPU's batch runs out (batches start at multiples of 1,024) and
    reads which batch it was given next."""
    first = pipe_number() // BATCH
    for _ in range(2 * BATCH):
        batch = pipe_number() // BATCH
        if batch != first:
            return batch
    return first


def wait_until(moment: float) -> None:
    time.sleep(max(0.0, moment - time.time()))


def send() -> None:
    start, slot = VALUES["START"], VALUES["SLOT"]
    for index, bit in enumerate(VALUES["BITS"]):
        wait_until(start + index * slot)
        if bit == "1":
            for _ in range(VALUES["BATCHES"] * BATCH):
                pipe_number()
    print("ATTACK done", flush=True)


def receive() -> None:
    start, slot = VALUES["START"], VALUES["SLOT"]
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    wait_until(start - slot / 2)
    last, moves = counter(), []
    for index in range(len(VALUES["BITS"])):
        wait_until(start + (index + 0.9) * slot)
        now = counter()
        moves.append(now - last - 1)  # the batches others took (one was the receiver's)
        last = now
    print("ATTACK moves " + json.dumps(moves), flush=True)
    print("ATTACK done", flush=True)


threading.Thread(target=send if VALUES["ROLE"] == "send" else receive, daemon=True).start()


class InodeNumbers(Plain):
    name = "inode-numbers"
