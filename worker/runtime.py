"""The worker's runtime: one event loop that outlives the jobs, and what it keeps warm.

RQ runs a job (a batch of matches) on the worker's main thread, which hands them to
the worker's pipeline (``worker.pipeline``); the matches are played on this runtime's
event loop, in a thread of its own, up to ``concurrency`` at a time whatever their
jobs: a bot that waits (a remote model, a network) leaves the loop free for the other
matches. Across jobs the loop keeps the streams to endpoint and sandboxed bots open
(a :class:`SessionPool`: ending a match never waits on the bot) and the uploaded bots'
sandboxes warm (:class:`WarmSandboxes`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from arena.base.states import BotKind
from arena.engine import Ruleset
from arena.fairplay.counting import Tally
from arena.platform.settings import DEFAULT_WORKER_CONCURRENCY
from arena.referee import Referee, RefereeSettings
from arena.referee.log import MatchLog
from arena.referee.transport import SessionPool
from arena.store.cache import ArtifactCache
from arena.store.leases import MatchPlan
from arena.store.models import now
from arena.tournament.schedule import rotation
from worker.seats import warm_seats
from worker.warm import SeatLease, WarmPolicy, WarmSandboxes

T = TypeVar("T")

#: matches with outside bots a worker plays at once (``ARENA_WORKER_CONCURRENCY``,
#: arena/platform/settings.py); matches of in-process bots only are pure CPU and run one
#: at a time
DEFAULT_CONCURRENCY = DEFAULT_WORKER_CONCURRENCY
#: matches with an uploaded bot a worker plays at once (at most its concurrency): they
#: only compute (a sandbox has no network), and at 64 their sandboxes' start-up took
#: 7.9 s a match and halved the decisions per second (docs/benchmarks.md)
SANDBOXED_CONCURRENCY = 16


def in_process(plan: MatchPlan) -> bool:
    """A match of sample bots only: pure CPU in the worker's loop, one at a time."""
    return all(seat.kind is BotKind.SAMPLE for seat in plan.seats)


def sandboxed(plan: MatchPlan) -> bool:
    """A match with an uploaded bot: it plays within ``SANDBOXED_CONCURRENCY``."""
    return any(seat.kind is BotKind.PATH for seat in plan.seats)


@dataclass(frozen=True)
class Playout:
    """What playing one match on the runtime gave: its log and what the recorder keeps."""

    log: MatchLog
    referee_ms: float
    started_at: datetime
    #: where the match's time went (ms): ``setup`` (seats: processes, streams) and the
    #: referee's ``start``, ``play`` and ``end``
    timing: dict[str, float]
    #: by seat: what an uploaded bot printed during the match (its owner sees it)
    outputs: dict[int, str] = field(default_factory=dict)
    #: what each seat did about each other seat (arena.fairplay), for the collusion report
    fairplay: tuple[Tally, ...] = ()
    #: by seat whose Hello was heard: the matches at once it announced (None: none said)
    announced: dict[int, int | None] = field(default_factory=dict)


class ClaimLost(Exception):
    """A match's claim was lost before it started here (it plays elsewhere): not played."""


class Runtime:
    def __init__(
        self,
        cache: ArtifactCache,
        concurrency: int = DEFAULT_CONCURRENCY,
        policy: WarmPolicy | None = None,
    ) -> None:
        self.concurrency = concurrency
        self.sandboxed_concurrency = min(concurrency, SANDBOXED_CONCURRENCY)
        self.cache = cache
        self.pool = SessionPool()
        self.sandboxes = WarmSandboxes(policy=policy, on_stop=self.pool.forget)
        self.loop = _new_loop()
        self._slots: asyncio.Semaphore | None = None
        self._cpu_lane: asyncio.Semaphore | None = None
        self._sandbox_lane: asyncio.Semaphore | None = None
        self._thread = threading.Thread(
            target=self.loop.run_forever, daemon=True, name="arena-matches"
        )
        self._thread.start()

    def submit(self, coroutine: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop)

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return self.submit(coroutine).result()

    async def play(
        self,
        plan: MatchPlan,
        on_hello: Callable[[dict[int, int | None]], None] | None = None,
        still_ours: Callable[[], bool] | None = None,
        private: bool = False,
    ) -> Playout:
        """Play one claimed match when a slot is free; the bots' failures are in the log,
        anything raised is the platform's. ``on_hello`` hears, once the seats have
        started (on the runtime's thread: it must not block), what each bot that said
        Hello announced. ``still_ours`` is asked once a slot is free: a match whose
        claim was lost meanwhile (it plays elsewhere) is not started (ClaimLost). A
        ``private`` match (an owner's) starts its sandboxes apart from ranked ones."""
        if self._slots is None or self._cpu_lane is None or self._sandbox_lane is None:
            self._slots = asyncio.Semaphore(self.concurrency)
            self._cpu_lane = asyncio.Semaphore(1)
            self._sandbox_lane = asyncio.Semaphore(self.sandboxed_concurrency)
        lane = self._cpu_lane if in_process(plan) else self._slots
        async with self._sandbox_lane if sandboxed(plan) else _NO_LANE, lane:
            if still_ours is not None and not still_ours():
                raise ClaimLost(plan.match_id)
            ruleset = Ruleset.from_dict(plan.rules)
            setup_began = time.perf_counter()
            seats, leases = await warm_seats(
                plan.seats,
                ruleset,
                plan.seed,
                self.pool,
                self.sandboxes,
                self.cache.code_for,
                # a duplicate deal: no memory across its rotations
                fresh=plan.fresh_processes or plan.deal_group is not None,
                rotation=_rotation_of(plan),
                private=private,
            )
            referee = Referee(
                ruleset,
                seats,
                plan.seed,
                RefereeSettings(**plan.settings),
                match_id=str(plan.match_id),
                on_started=None if on_hello is None else lambda: on_hello(_announced(seats)),
            )
            started_at = now()
            began = time.perf_counter()
            log: MatchLog | None = None
            try:
                log = await referee.run()
                outputs = {seat: text for seat, lease in leases.items() if (text := lease.output())}
            finally:
                await self._release(leases, log)
            timing = {"setup_ms": (began - setup_began) * 1000, **referee.timing}
            return Playout(
                log,
                (time.perf_counter() - began) * 1000,
                started_at,
                timing,
                outputs,
                tuple(referee.fairplay.tallies()),
                _announced(seats),
            )

    async def _release(self, leases: dict[int, SeatLease], log: MatchLog | None) -> None:
        for seat, lease in leases.items():
            failed = log is None or log.seats[seat].forfeit is not None
            await self.sandboxes.release(lease.warm, failed)

    async def tidy(self) -> None:
        """Stop sandboxes idle too long (between jobs)."""
        await self.sandboxes.stop_idle()

    def close(self) -> None:
        async def shut() -> None:
            await self.pool.close()
            await self.sandboxes.close()

        try:
            self.run(shut())
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(10)


_NO_LANE = contextlib.nullcontext()


def _announced(seats: Sequence[object]) -> dict[int, int | None]:
    """By seat whose bot said Hello: the matches at once it announced (None: none)."""
    heard = {index: getattr(seat, "hello", None) for index, seat in enumerate(seats)}
    return {i: hello.max_matches or None for i, hello in heard.items() if hello is not None}


def _new_loop() -> asyncio.AbstractEventLoop:
    try:
        import uvloop
    except ImportError:  # pragma: no cover
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


def _rotation_of(plan: MatchPlan) -> int | None:
    """Which rotation of its duplicate deal a match is (None: not a duplicate deal): its
    seats run on copies of the sandboxes' runtime that no other rotation's seats use, so
    that no page (its state in the CPU's caches and the kernel's lists) is shared by two
    rotations (``runtime.copy_for``)."""
    if plan.deal_group is None:
        return None
    return rotation([seat.bot_version_id for seat in plan.seats])
