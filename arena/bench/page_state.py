"""What a sandbox learns from the pages a sandbox made before it read, measured.

A writer reads one byte of some pages of a large file of the runtime image (a 1) and
leaves the others (a 0); its sandbox is closed; a reader, in a new sandbox, times a
one-byte read of every page and calls the faster half 1s. Pages a writer read stay a
while in the CPU's caches (and marked in the kernel's lists): on the same copy of the
runtime the reader is right more often than chance. The worker runs each rotation of a
duplicate deal on a copy of its own (worker/runtime.py), so the figure that matters
there is the reader's on another copy. Each trial uses pages no earlier trial touched
(while the file has them). docs/sandbox.md says what this means.
"""

from __future__ import annotations

import json
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scipy.stats import binomtest

from arena.bench.channels import attack_bot, entropy, when_done
from arena.platform.sandbox import Sandbox, availability, runtime

ATTACK = Path(__file__).with_name("attacks") / "page_state.py"
PAGE = 4096
#: pages between two bits
STRIDE = 2
#: seconds a bot may take to do its part
PART_SECONDS = 60.0
#: how the reader's sandbox relates to the writer's (image copy 0)
COPIES = {"the same copy": 0, "another copy": 1}


def run(
    bits: int = 256, trials: int = 5, progress: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """``trials`` writes and reads of ``bits`` random bits with the reader on each copy;
    the median share read right, and every trial with its p-value (chance: a half)."""
    where = availability()
    if not where.runs_uploaded_bots:
        raise RuntimeError(f"no sandbox on this machine: {where.describe()}")
    say = progress or (lambda _: None)
    shared = _largest_file()
    windows = max(1, shared.stat().st_size // PAGE // (bits * STRIDE))
    figures: dict[str, Any] = {"file": _inside(shared), "bits": bits, "copies": {}}
    window = 0
    for name, copy in COPIES.items():
        results = []
        for trial in range(trials):
            say(f"{name}: trial {trial + 1} of {trials}, {bits} bits")
            first = (window % windows) * bits * STRIDE
            window += 1
            results.append(transfer(_bits(bits, trial), _inside(shared), first, copy))
        right = statistics.median(r["right"] for r in results)
        figures["copies"][name] = {
            "median_right": right,
            "capacity_bits_per_page": round(1 - entropy(1 - right), 4),
            "trials_beyond_chance": sum(r["p_value"] < 0.01 for r in results),
            "trials": results,
        }
    return figures


def transfer(bits: str, file: str, first: int, reader_copy: int) -> dict[str, Any]:
    """One write on copy 0 and one read, after it, on ``reader_copy``."""
    values = {"BITS": bits, "FILE": file, "FIRST": first, "STRIDE": STRIDE}
    with tempfile.TemporaryDirectory(prefix="arena-bench-page-state-") as tmp:
        writer = attack_bot(ATTACK, Path(tmp) / "write", {**values, "ROLE": "write"})
        reader = attack_bot(ATTACK, Path(tmp) / "read", {**values, "ROLE": "read"})
        with Sandbox(writer) as writing:
            when_done(writing, time.time() + PART_SECONDS)
        with Sandbox(reader, image=reader_copy) as reading:
            output = when_done(reading, time.time() + PART_SECONDS)
    took = _took(output)
    middle = statistics.median(took)
    right = sum((ns <= middle) == (bit == "1") for ns, bit in zip(took, bits, strict=True))
    return {
        "right": round(right / len(bits), 4),
        "p_value": float(f"{binomtest(right, len(bits), 0.5, 'greater').pvalue:.3g}"),
    }


def _largest_file() -> Path:
    """The image's largest file: its pages are the writer's and the reader's."""
    files = (path for path in (runtime.image() / "usr").rglob("*") if path.is_file())
    return max(files, key=lambda path: path.stat().st_size)


def _inside(path: Path) -> str:
    return "/" + str(path.relative_to(runtime.image()))


def _bits(count: int, trial: int) -> str:
    rng = random.Random(f"arena-bench-page-state/{trial}")
    return "".join(rng.choice("01") for _ in range(count))


def _took(output: str) -> list[int]:
    for line in output.splitlines():
        if line.startswith("ATTACK took "):
            took: list[int] = json.loads(line.removeprefix("ATTACK took "))
            return took
    raise RuntimeError(f"the reader read nothing: {output[-400:]}")
