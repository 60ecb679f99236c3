"""Seats for a match from stored bot versions: samples in process, endpoints over gRPC,
uploaded Python bots each in a fresh sandbox for the match (see arena.platform.sandbox).
The worker's matches and the qualification matches are seated here alike.

A sandbox the platform cannot build raises :class:`SandboxUnavailable` out of here: the
match is played again (an infrastructure failure), never a forfeit."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

from arena.base.states import BotKind
from arena.engine import Ruleset
from arena.platform.sandbox import (
    Sandbox,
    SandboxedSeat,
    SandboxError,
    SandboxUnavailable,
    availability,
    runtime,
)
from arena.referee import GrpcSeat, LocalSeat, Seat
from arena.referee.failures import FailureKind, SeatFailure
from arena.store.leases import SeatPlan
from sample_bots import SAMPLES


def seats_for(
    plans: list[SeatPlan],
    ruleset: Ruleset,
    seed: str,
    stack: ExitStack,
    code_for: Callable[[str], Path] = Path,
    players: int | None = None,
) -> list[Seat]:
    """The seats of a match, each sandbox fresh (``code_for`` finds an upload's code);
    sandboxes close (and their processes die) with ``stack``. ``players``: the seats at
    the table when others than these bots sit there (a person), else one per plan."""
    players = players or len(plans)
    seats: list[Seat] = []
    for index, plan in enumerate(plans):
        if plan.kind is BotKind.SAMPLE:
            bot = SAMPLES[plan.target](ruleset=ruleset, players=players, seed=f"{seed}/{index}")
            seats.append(LocalSeat(bot, plan.name))
        elif plan.kind is BotKind.ENDPOINT:
            seats.append(GrpcSeat(plan.target, plan.name))
        else:
            where = availability()
            if not where.runs_uploaded_bots:  # the platform's failure: the match goes back
                raise SandboxUnavailable(where.describe())
            try:
                # a copy of the runtime by seat: seats alive at once share no page
                copy = runtime.copy_for(index)
                box = stack.enter_context(Sandbox(code_for(plan.target), image=copy))
            except SandboxError as error:  # the bot's failure: it forfeits, the job goes on
                seats.append(UnstartableSeat(plan.name, str(error)))
                continue
            seats.append(SandboxedSeat(box, plan.name))
    return seats


class UnstartableSeat:
    """A bot that could not be started: it forfeits before the first deal."""

    def __init__(self, name: str, reason: str) -> None:
        self.name, self.reason = name, reason

    async def start(self, start, timeout: float) -> None:
        raise SeatFailure(FailureKind.UNREACHABLE, self.reason)

    async def decide(self, observation, deal: int, allowed: float):
        raise SeatFailure(FailureKind.UNREACHABLE, self.reason)

    async def end(self, end) -> None:
        return None

    async def close(self) -> None:
        return None
