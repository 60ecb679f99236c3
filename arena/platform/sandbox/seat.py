"""The referee's seat for a sandboxed bot: when the bot fails, the reason names the
limit it broke; the CPU the bot uses while the match waits on it is charged to the
match, and a match that costs more than its budget is forfeited."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable

from arena.platform.sandbox.box import Sandbox
from arena.platform.sandbox.meter import CpuMeter
from arena.platform.settings import MATCH_CPU_SECONDS
from arena.referee.failures import FailureKind, SeatFailure
from arena.referee.seats import GrpcSeat
from arena.referee.transport import SessionPool


class SandboxedSeat(GrpcSeat):
    def __init__(
        self,
        box: Sandbox,
        name: str,
        *,
        pool: SessionPool | None = None,
        meter: CpuMeter | None = None,
        cpu_budget: float = MATCH_CPU_SECONDS,
    ) -> None:
        """``meter`` is the process's (shared by the seats a warm process serves)."""
        super().__init__(box.endpoint or "", name, pool=pool)
        self.box = box
        self.meter = meter or CpuMeter(box.cpu_seconds, box.set_busy)
        self.cpu_budget = cpu_budget
        #: CPU seconds charged to this seat's match so far
        self.cpu_used = 0.0

    async def start(self, start, timeout: float) -> None:
        await self._charged(super().start(start, timeout))

    async def decide(self, observation, deal: int, allowed: float):
        return await self._charged(super().decide(observation, deal, allowed))

    async def _charged(self, request: Awaitable):
        mark = self.meter.begin()
        try:
            result = await request
        except SeatFailure as failure:
            raise await self._explained(failure) from None
        finally:
            self.cpu_used += self.meter.end(mark)
        if self.cpu_used > self.cpu_budget:
            raise SeatFailure(
                FailureKind.CPU_LIMIT,
                f"used {self.cpu_used:.1f} s of CPU in this match, over its budget of "
                f"{self.cpu_budget:g} s",
            )
        return result

    async def _explained(self, failure: SeatFailure) -> SeatFailure:
        for _ in range(20):  # the process may take a moment to be reaped
            if self.box.returncode is not None:
                break
            await asyncio.sleep(0.05)
        limit = self.box.limit_broken()
        if limit is None:
            return failure
        return SeatFailure(failure.kind, f"{limit} ({failure.detail})")
