"""The engine's instructions per decision, counted by valgrind (callgrind): the figure of
`arena bench engine`'s loop that does not move with the machine's speed or load, so a
change to the engine can be judged by one run before and one after.

Two counted runs of the same process, ``warm`` deals and then ``warm + deals``: the
difference, over the decisions between, leaves out start-up and the first deals (which
fill the game's legal-action memo).
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from arena.bench.engine import play_seeded
from arena.engine import Game, Ruleset
from arena.platform import children
from arena.policies import RandomLegal

_COLLECTED = re.compile(r"Collected\s*:\s*([\d,]+)")


class ValgrindMissing(RuntimeError):
    """The count needs valgrind on the PATH."""


def play(deals: int, players: int = 4, rules: str = "classic") -> int:
    """Play deals 0..deals-1 as `arena bench engine` does; return the decisions."""
    game = Game(Ruleset.parse(rules), players)
    policies = [RandomLegal(seat) for seat in range(players)]
    return sum(play_seeded(game, policies, seed) for seed in range(deals))


def counted(deals: int, players: int) -> tuple[int, int]:
    """``(decisions, instructions)`` of a process that plays ``deals`` deals."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise ValgrindMissing("valgrind is not installed (apt install valgrind)")
    with tempfile.TemporaryDirectory() as folder:
        done = children.run(
            [
                valgrind,
                "--tool=callgrind",
                f"--callgrind-out-file={Path(folder) / 'callgrind.out'}",
                sys.executable,
                "-m",
                "arena.bench.instructions",
                str(deals),
                str(players),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
    found = _COLLECTED.search(done.stderr)
    if found is None:
        raise RuntimeError(f"valgrind printed no count: {done.stderr[-500:]}")
    return int(done.stdout.split()[-1]), int(found.group(1).replace(",", ""))


def run(
    warm: int = 300,
    deals: int = 1000,
    players: int = 4,
    progress: Callable[[int], None] | None = None,
) -> dict[str, float | int | str]:
    from arena import native

    first_decisions, first = counted(warm, players)
    if progress is not None:
        progress(1)
    last_decisions, last = counted(warm + deals, players)
    if progress is not None:
        progress(2)
    decisions = last_decisions - first_decisions
    return {
        "instructions_per_decision": round((last - first) / decisions),
        "decisions": decisions,
        "deals": deals,
        "warm_deals": warm,
        "players": players,
        "rules": "classic",
        "engine": "compiled" if native.compiled() else "python",
    }


if __name__ == "__main__":  # the counted process
    print(play(int(sys.argv[1]), int(sys.argv[2])))
