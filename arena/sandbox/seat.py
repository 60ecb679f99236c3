"""The referee's seat for a sandboxed bot: when the bot fails, the reason names the
limit it broke."""

from __future__ import annotations

import asyncio

from arena.referee.seats import GrpcSeat, SeatFailure, SessionPool
from arena.sandbox.box import Sandbox


class SandboxedSeat(GrpcSeat):
    def __init__(self, box: Sandbox, name: str, *, pool: SessionPool | None = None) -> None:
        super().__init__(box.endpoint or "", name, pool=pool)
        self.box = box

    async def start(self, start, timeout: float) -> None:  # noqa: ANN001
        try:
            await super().start(start, timeout)
        except SeatFailure as failure:
            raise await self._explained(failure) from None

    async def decide(self, observation, deal: int, allowed: float):  # noqa: ANN001, ANN201
        try:
            return await super().decide(observation, deal, allowed)
        except SeatFailure as failure:
            raise await self._explained(failure) from None

    async def _explained(self, failure: SeatFailure) -> SeatFailure:
        for _ in range(20):  # the process may take a moment to be reaped
            if self.box.returncode is not None:
                break
            await asyncio.sleep(0.05)
        limit = self.box.limit_broken()
        if limit is None:
            return failure
        return SeatFailure(failure.kind, f"{limit} ({failure.detail})")
