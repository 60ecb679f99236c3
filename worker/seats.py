"""Seats for a match from stored bot versions: samples in process, endpoints over gRPC,
Python files as subprocesses the worker keeps for its lifetime."""

from __future__ import annotations

import atexit
import subprocess

from arena.engine import Ruleset
from arena.launcher import BotProcesses, BotSpec, command_for
from arena.referee import GrpcSeat, LocalSeat, Seat
from arena.store.matches import SeatPlan
from sample_bots import SAMPLES

_processes: BotProcesses | None = None
_started: dict[str, tuple[subprocess.Popen[str], str]] = {}  # path -> (process, endpoint)


def seats_for(plans: list[SeatPlan], ruleset: Ruleset, seed: str) -> list[Seat]:
    players = len(plans)
    seats: list[Seat] = []
    for index, plan in enumerate(plans):
        if plan.kind == "sample":
            bot = SAMPLES[plan.target](ruleset=ruleset, players=players, seed=f"{seed}/{index}")
            seats.append(LocalSeat(bot, plan.name))
        elif plan.kind == "endpoint":
            seats.append(GrpcSeat(plan.target, plan.name))
        else:
            seats.append(GrpcSeat(_file_bot_endpoint(plan.target), plan.name))
    return seats


def _file_bot_endpoint(path: str) -> str:
    """The endpoint of the worker's process for a bot file, (re)started when needed."""
    global _processes
    if _processes is None:
        _processes = BotProcesses()
        atexit.register(_processes.stop_all)
    started = _started.get(path)
    if started is None or started[0].poll() is not None:
        endpoint = _processes.start(command_for(BotSpec("file", path)), path)
        started = _started[path] = (_processes.processes[-1], endpoint)
    return started[1]
