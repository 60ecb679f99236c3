"""A ranked match's sandboxes never wait behind an owner's private ones: private starts
have a thread of their own, and stops never hold a start up (``worker.warm``)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from tests.support.waiting import HANG_SECONDS
from worker.warm import WarmSandboxes


class FakeBox:
    """What a warm process needs of a sandbox, without one."""

    returncode = None
    endpoint = ""

    def cpu_seconds(self) -> float | None:
        return None

    def set_busy(self, busy: bool) -> None:
        pass

    def close(self) -> None:
        pass


def test_a_ranked_start_goes_ahead_while_private_starts_hang() -> None:
    held = threading.Event()  # private starts block on it until the ranked lease is made
    private_started = threading.Semaphore(0)

    class Sandboxes(WarmSandboxes):
        def _start(self, code, image):  # type: ignore[no-untyped-def]
            if code() == Path("private"):
                private_started.release()
                held.wait(HANG_SECONDS)
            return FakeBox()

    async def scenario() -> list[str]:
        sandboxes = Sandboxes()
        loop = asyncio.get_running_loop()
        private = [
            asyncio.ensure_future(
                sandboxes.lease(f"p{n}", lambda: Path("private"), fresh=True, private=True)
            )
            for n in range(3)  # more than every starting thread the runtime has
        ]
        await loop.run_in_executor(None, private_started.acquire)  # one is in its start
        ranked = await asyncio.wait_for(
            sandboxes.lease("ranked", lambda: Path("ranked")), HANG_SECONDS
        )
        order = ["ranked" if ranked.key == "ranked@0" else "?"]
        order += ["private still starting"] * sum(not task.done() for task in private)
        held.set()
        await asyncio.gather(*private)
        await sandboxes.close()
        return order

    assert asyncio.run(scenario()) == ["ranked"] + ["private still starting"] * 3
