"""What a live channel between two sandboxes carries, measured.

Two real sandboxes, alive at the same time as two bots of different matches are: a
sender and a receiver of ``bits`` random bits through the inode numbers of pipes (one
host-wide counter: arena/bench/attacks/inode_numbers.py), one bit per ``slot`` seconds.
The receiver's readings are split into 0s and 1s at the threshold that decodes best
(what a preamble of known bits gives an attacker); the figures are the bit rate, the
bit errors and the capacity of that channel (a binary symmetric channel: rate x
(1 - H(errors))). docs/sandbox.md says what such a channel can and cannot carry.

``relay=True`` measures the relay: a third sandbox alive across two rotations of a
duplicate deal reads the sender (the first rotation's), which is then closed, and sends
what it read to a receiver started afterwards (the next rotation's).
"""

from __future__ import annotations

import json
import math
import random
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from arena.platform.sandbox import Sandbox, availability

ATTACK = Path(__file__).with_name("attacks") / "inode_numbers.py"
#: seconds from writing the bots to the first slot: both sandboxes start meanwhile
START_SECONDS = 8.0
#: seconds past the last slot before a silent bot is given up
GRACE_SECONDS = 30.0


def run(
    bits: int = 128,
    slot: float = 0.1,
    batches: int = 3,
    trials: int = 3,
    progress: Callable[[str], None] | None = None,
    relay: bool = False,
) -> dict[str, Any]:
    """``trials`` transmissions of ``bits`` bits (``relay``: through a third sandbox, the
    sender closed before the receiver starts); the medians and every trial."""
    where = availability()
    if not where.runs_uploaded_bots:
        raise RuntimeError(f"no sandbox on this machine: {where.describe()}")
    say = progress or (lambda _: None)
    results = []
    for trial in range(trials):
        say(f"trial {trial + 1} of {trials}: {bits} bits, {slot:g} s a bit")
        sent = _bits(bits, trial)
        results.append(relayed(sent, slot, batches) if relay else transmit(sent, slot, batches))
    return {
        "channel": "inode numbers of pipes (one host-wide counter)"
        + (", relayed by a third sandbox" if relay else ""),
        "relay": relay,
        "bits": bits,
        "slot_s": slot,
        "batches_per_one": batches,
        "rate_bits_per_s": round(1 / slot, 2),
        "error_rate": statistics.median(r["error_rate"] for r in results),
        "capacity_bits_per_s": statistics.median(r["capacity_bits_per_s"] for r in results),
        "trials": results,
    }


def transmit(bits: str, slot: float, batches: int) -> dict[str, Any]:
    """One transmission between two live sandboxes: what the receiver decoded."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-channels-") as tmp:
        start = time.time() + START_SECONDS
        values = {"BITS": bits, "START": start, "SLOT": slot, "BATCHES": batches}
        sender = attack_bot(ATTACK, Path(tmp) / "send", {**values, "ROLE": "send"})
        receiver = attack_bot(ATTACK, Path(tmp) / "receive", {**values, "ROLE": "receive"})
        with Sandbox(sender) as sending, Sandbox(receiver) as receiving:
            until = start + len(bits) * slot + GRACE_SECONDS
            output = when_done(receiving, until)
            when_done(sending, until)
    moves = _moves(output)
    errors = _errors(_decoded(moves, bits), bits) / len(bits)
    return {
        "error_rate": round(errors, 4),
        "capacity_bits_per_s": round((1 - entropy(errors)) / slot, 2),
        "median_move_on_0": statistics.median(
            m for m, b in zip(moves, bits, strict=True) if b == "0"
        ),
        "median_move_on_1": statistics.median(
            m for m, b in zip(moves, bits, strict=True) if b == "1"
        ),
    }


def relayed(bits: str, slot: float, batches: int) -> dict[str, Any]:
    """One transmission from a sender to a receiver that are never alive at once, through
    a relay alive beside each in turn: what the receiver decoded at the end."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-channels-") as tmp:
        start = time.time() + START_SECONDS
        resend = start + len(bits) * slot + START_SECONDS
        values = {"BITS": bits, "START": start, "SLOT": slot, "BATCHES": batches}
        sender = attack_bot(ATTACK, Path(tmp) / "send", {**values, "ROLE": "send"})
        relaying = {**values, "ROLE": "relay", "RESEND": resend}
        middle = attack_bot(ATTACK, Path(tmp) / "relay", relaying)
        receiver = attack_bot(
            ATTACK, Path(tmp) / "receive", {**values, "ROLE": "receive", "START": resend}
        )
        with Sandbox(middle) as relay:
            with Sandbox(sender) as sending:
                when_done(sending, start + len(bits) * slot + GRACE_SECONDS)
            with Sandbox(receiver) as receiving:  # started once the sender is gone
                until = resend + len(bits) * slot + GRACE_SECONDS
                output = when_done(receiving, until)
                relayed_output = when_done(relay, until)
    moves = _moves(output)
    first_hop = _relayed(relayed_output)
    errors = _errors(_decoded(moves, bits), bits) / len(bits)
    return {
        "error_rate": round(errors, 4),
        "first_hop_error_rate": round(_errors(first_hop, bits) / len(bits), 4),
        "capacity_bits_per_s": round((1 - entropy(errors)) / slot, 2),
        "median_move_on_0": statistics.median(
            m for m, b in zip(moves, bits, strict=True) if b == "0"
        ),
        "median_move_on_1": statistics.median(
            m for m, b in zip(moves, bits, strict=True) if b == "1"
        ),
    }


def _relayed(output: str) -> str:
    for line in output.splitlines():
        if line.startswith("ATTACK relayed "):
            return line.removeprefix("ATTACK relayed ")
    raise RuntimeError(f"the relay read nothing: {output[-400:]}")


def _bits(count: int, trial: int) -> str:
    rng = random.Random(f"arena-bench-channels/{trial}")
    return "".join(rng.choice("01") for _ in range(count))


def attack_bot(attack: Path, folder: Path, values: dict[str, Any]) -> Path:
    """The bot ``attack`` (a file of arena/bench/attacks) in ``folder``, with ``values``."""
    folder.mkdir(parents=True)
    shutil.copy(attack, folder / "bot.py")
    shutil.copy(attack.with_name("plain.py"), folder / "plain.py")
    (folder / "values.json").write_text(json.dumps(values))
    return folder


def when_done(box: Sandbox, until: float) -> str:
    """The bot's output once it says it is done (by ``until``, else an error)."""
    while True:
        output = box.output_tail(200_000)
        if "ATTACK done" in output:
            return output
        if time.time() > until:
            raise RuntimeError(f"the attack did not finish: {output[-400:]}")
        time.sleep(0.2)


def _moves(output: str) -> list[int]:
    for line in output.splitlines():
        if line.startswith("ATTACK moves "):
            moves: list[int] = json.loads(line.removeprefix("ATTACK moves "))
            return moves
    raise RuntimeError(f"the receiver read nothing: {output[-400:]}")


def _decoded(moves: Sequence[int], bits: str) -> str:
    """The readings as bits, split at the threshold that decodes them best: what an
    attacker finds from a preamble of known bits (so the capacity is not understated)."""

    def at(threshold: float) -> str:
        return "".join("1" if move > threshold else "0" for move in moves)

    thresholds = [value + 0.5 for value in sorted(set(moves))] + [min(moves) - 0.5]
    return min((at(t) for t in thresholds), key=lambda got: _errors(got, bits))


def _errors(got: str, bits: str) -> int:
    return sum(a != b for a, b in zip(got, bits, strict=True))


def entropy(p: float) -> float:
    """The binary entropy of ``p``, in bits."""
    if p <= 0 or p >= 1:
        return 0.0
    return -p * math.log2(p) - (1 - p) * math.log2(1 - p)
