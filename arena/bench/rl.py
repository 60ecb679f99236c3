"""The learning environments' speed: engine decisions per second beside the steps per
second of the PettingZoo AEC environment: raw, as ``arena.rl.aec_env()`` gives it (with
the checks of PettingZoo's wrappers built in), and in PettingZoo's own three wrappers,
with random legal actions and ``last()`` at each step (a step is one sub-decision:
docs/learning.md). The three environments are measured in turn within each repeat, so
the machine's drift touches them alike.

Each figure is the median of ``repeats`` runs of about ``seconds`` each, on one core.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from arena.bench import engine as bench_engine


def run(
    seconds: float = 2.0,
    repeats: int = 5,
    players: int = 4,
    progress: Callable[[str], None] | None = None,
) -> dict[str, float | int | str]:
    from arena.rl import aec_env, raw_env
    from arena.rl.aec import pettingzoo_wrapped

    def tell(what: str) -> None:
        if progress is not None:
            progress(what)

    tell("the engine")
    engine = bench_engine.run(seconds, repeats, players)
    kinds: dict[str, Callable[..., Any]] = {
        "raw": raw_env,
        "checked": aec_env,
        "pettingzoo_wrapped": pettingzoo_wrapped,
    }
    runs: dict[str, list[float]] = {name: [] for name in kinds}
    for repeat in range(repeats):
        for name, make in kinds.items():
            tell(f"the {name} AEC environment, run {repeat + 1} of {repeats}")
            runs[name].append(_steps_per_s(make(players=players), seconds, repeat))
    rates = {name: round(statistics.median(found)) for name, found in runs.items()}
    return {
        "engine_decisions_per_s": engine["decisions_per_s"],
        "aec_raw_steps_per_s": rates["raw"],
        "aec_env_steps_per_s": rates["checked"],
        "aec_pettingzoo_wrapped_steps_per_s": rates["pettingzoo_wrapped"],
        "repeats": repeats,
        "seconds_per_repeat": seconds,
        "players": players,
        "rules": "classic",
        "engine": engine["engine"],
    }


def _steps_per_s(env: Any, seconds: float, seed: int) -> float:
    """Steps per second of ``env`` under random legal actions, ``last()`` each step."""
    rng = random.Random(seed)
    env.reset(seed=seed)
    steps, began = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - began) < seconds:
        if not env.agents:
            env.reset()
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        env.step(int(legal[int(rng.random() * len(legal))]))
        steps += 1
    return steps / elapsed
