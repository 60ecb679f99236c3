"""A live channel through inode numbers: pipes take theirs from one host-wide counter,
in batches of 1,024 per CPU. In each time slot the sender takes ``BATCHES`` batches
(makes and closes that many pipes) for a 1 and nothing for a 0; the receiver, in
another sandbox at the same time, ends each slot by making pipes until its own CPU's
batch runs out and reads where the counter stands: how far it moved since the last
slot (in batches, its own left out). Both agree on the slots by the clock they share.
A ``relay`` receives the bits so from a sender, then sends what it read from ``RESEND``
on: a third sandbox alive across two rotations of a duplicate deal, carrying what the
first rotation's sender knew to the next rotation's receiver.
Run inside a sandbox as ``bot.py`` beside ``values.json`` (ROLE, BITS, START, SLOT,
BATCHES, and RESEND for a relay)."""

import json
import os
import threading
import time
from pathlib import Path

from plain import Plain  # type: ignore[import-not-found]  # copied beside it

BATCH = 1024
VALUES = json.loads(Path(__file__).with_name("values.json").read_text())
#: the CPUs this process may run on, before a receiver pins itself to the first
CPUS = os.sched_getaffinity(0)


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


def send(bits: str = VALUES["BITS"], start: float = VALUES["START"]) -> None:
    slot = VALUES["SLOT"]
    for index, bit in enumerate(bits):
        wait_until(start + index * slot)
        if bit == "1":
            for _ in range(VALUES["BATCHES"] * BATCH):
                pipe_number()
    print("ATTACK done", flush=True)


def moves_read() -> list[int]:
    start, slot = VALUES["START"], VALUES["SLOT"]
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    wait_until(start - slot / 2)
    last, moves = counter(), []
    for index in range(len(VALUES["BITS"])):
        wait_until(start + (index + 0.9) * slot)
        now = counter()
        moves.append(now - last - 1)  # the batches others took (one was the receiver's)
        last = now
    return moves


def receive() -> None:
    print("ATTACK moves " + json.dumps(moves_read()), flush=True)
    print("ATTACK done", flush=True)


def relay() -> None:
    """Read the bits (a 1 moved the counter by at least half the sender's batches), then
    send them on to a receiver that starts later."""
    moves = moves_read()
    bits = "".join("1" if move >= max(1, VALUES["BATCHES"] / 2) else "0" for move in moves)
    print(f"ATTACK relayed {bits}", flush=True)
    # off the receiver's CPU (the lowest): pipes made there would draw on its own batch
    os.sched_setaffinity(0, {max(CPUS)})
    send(bits, VALUES["RESEND"])


ROLES = {"send": send, "receive": receive, "relay": relay}
threading.Thread(target=ROLES[VALUES["ROLE"]], daemon=True).start()


class InodeNumbers(Plain):
    name = "inode-numbers"
