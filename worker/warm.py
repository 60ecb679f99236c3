"""Warm sandboxes: a worker keeps each uploaded bot's sandboxed process across matches.

Starting a sandbox costs about 100 ms, far more than a match; so a process, once
started, serves match after match, and several seats at once (the SDK's server starts
a fresh ``Bot`` for each ``MatchStart`` on each stream, so no state leaks between
matches through the SDK; what the bot keeps in globals is its own business, and only
ever meets its own matches).

Each seat is charged the CPU its process used while the match waited on it
(arena.platform.sandbox.meter) and forfeits its match beyond ``match_cpu_seconds``.

A process is retired (it takes no new seat, and is stopped once its last seat is
done) when it died or broke a limit, when one of its seats forfeited, when it used
more than ``match_cpu_seconds`` of CPU per match on average (computing between
requests), when it used half of its lifetime CPU limit (so the limit never ends it in
the middle of a match), or when it served ``max_matches`` matches; so a failure stops
the bot's process, never another match's bot. Idle processes are stopped after
``idle_seconds``. Sandboxes are started and closed on a thread of their own that lives
as long as the pool: bubblewrap's ``--die-with-parent`` is tied to the thread that
started it, so a short-lived thread would take its bot with it.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from arena.platform.sandbox import Limits, Sandbox
from arena.platform.sandbox.box import DEFAULT_LIMITS
from arena.platform.sandbox.meter import CpuMeter
from arena.platform.settings import MATCH_CPU_SECONDS

log = logging.getLogger(__name__)


@dataclass(eq=False)
class Warm:
    """One warm sandboxed process and what it has done."""

    key: str
    box: Sandbox
    #: seats it serves now
    leases: int = 0
    matches: int = 0
    retiring: str | None = None
    last_used: float = field(default_factory=time.monotonic)
    #: charges the process's CPU to the matches waiting on it
    meter: CpuMeter = field(init=False)

    def __post_init__(self) -> None:
        self.meter = CpuMeter(self.box.cpu_seconds, self.box.set_busy)

    @property
    def alive(self) -> bool:
        return self.box.returncode is None

    def cpu_per_match(self) -> float | None:
        """CPU seconds per match served (None where nothing counts the process's CPU)."""
        used = self.box.cpu_seconds()
        if used is None or not self.matches:
            return None
        return used / self.matches


@dataclass(frozen=True)
class SeatLease:
    """A seat's share of a warm process for one match, and where the process's output
    stood when the match began (what it prints from there is the match's)."""

    warm: Warm
    output_mark: int

    def output(self) -> str:
        return self.warm.box.output_since(self.output_mark)


@dataclass(frozen=True)
class WarmPolicy:
    #: matches one process serves before it is replaced
    max_matches: int = 500
    #: seats one process serves at once: a worker's sandboxed matches at once
    #: (worker.runtime.SANDBOXED_CONCURRENCY), so a bot's seats on a worker need one
    #: process and one start (at 8, a bot at every table of a worker had two: 16 made
    #: the pipeline bench's runs of 200 matches 30 % faster); a bot that wants fewer
    #: matches at once says so in its Hello (``max_matches``)
    max_seats: int = 16
    #: seconds an idle process is kept
    idle_seconds: float = 60.0
    #: CPU seconds a seat may use in one match (more forfeits it); a process using more
    #: per match on average (computing between requests) is replaced
    match_cpu_seconds: float = MATCH_CPU_SECONDS


class WarmSandboxes:
    """Warm processes by key (a bot version's code), for one event loop."""

    def __init__(
        self,
        limits: Limits = DEFAULT_LIMITS,
        policy: WarmPolicy | None = None,
        on_stop: Callable[[str], Awaitable[None]] | None = None,
    ) -> None:
        """``on_stop(endpoint)`` is awaited after a process is stopped (to drop its streams)."""
        self.on_stop = on_stop
        self.limits = limits
        self.policy = policy or WarmPolicy()
        self._warm: dict[str, list[Warm]] = {}
        self._starting: dict[str, asyncio.Lock] = {}
        #: seats that chose a key's copy and have not leased it yet (by key with its copy)
        self._promised: Counter[str] = Counter()
        # starts for ranked matches, for owners' private ones, and stops each have threads
        # of their own: a ranked table's sandbox never waits behind an A/B test's fresh
        # processes starting or stopping (arena bench lanes)
        self._starter = ThreadPoolExecutor(max_workers=2, thread_name_prefix="arena-sandboxes")
        self._private_starter = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="arena-private-sandboxes"
        )
        self._stopper = ThreadPoolExecutor(max_workers=2, thread_name_prefix="arena-stops")
        self.started = 0

    async def lease(
        self,
        key: str,
        code: Callable[[], Path],
        *,
        fresh: bool = False,
        image: int = 0,
        private: bool = False,
        promised: bool = False,
    ) -> Warm:
        """A live process for ``key`` with a free seat: a warm one, else a new one started
        from ``code()`` (raises the sandbox's errors: SandboxError is the bot's,
        SandboxUnavailable the platform's). A ``fresh`` lease gets a process of its own,
        stopped after its match (nothing the bot remembers reaches another match), on the
        runtime's copy ``image`` (a warm process serves only seats on its copy). A
        ``private`` match's processes start on a thread of their own. A ``promised``
        lease ends the seat's :meth:`promise`, once the process is there or failed."""
        key = _on_copy(key, image)
        try:
            return await self._lease(key, code, fresh=fresh, image=image, private=private)
        finally:
            if promised:
                self._forget(key)

    async def _lease(
        self, key: str, code: Callable[[], Path], *, fresh: bool, image: int, private: bool
    ) -> Warm:
        async with self._starting.setdefault(key, asyncio.Lock()):
            warm = None if fresh else self._free(key)
            if warm is None:
                loop = asyncio.get_running_loop()
                start = functools.partial(self._start, code, image)
                starter = self._private_starter if private else self._starter
                box = await loop.run_in_executor(starter, start)
                self.started += 1
                warm = Warm(key, box, retiring="fresh for one match" if fresh else None)
                self._warm.setdefault(key, []).append(warm)
            warm.leases += 1
            return warm

    def _free(self, key: str) -> Warm | None:
        return min(self._takers(key), key=lambda w: w.leases, default=None)

    def _takers(self, key: str) -> list[Warm]:
        """The live processes of ``key`` (with its copy) that take another seat."""
        return [w for w in self._live(key) if w.leases < self.policy.max_seats]

    def _live(self, key: str) -> list[Warm]:
        """The processes of ``key`` (with its copy) alive and not retiring."""
        return [w for w in self._warm.get(key, []) if w.retiring is None and w.alive]

    def promise(self, key: str, copy: int) -> None:
        """A seat chose ``copy`` for ``key`` and leases it next: until it has (its
        process may take a while to start), the copy counts as ``key``'s for the tables
        that choose meanwhile, so that they share the process rather than start more."""
        self._promised[_on_copy(key, copy)] += 1

    def unpromise(self, key: str, copy: int) -> None:
        """A seat that promised ``copy`` for ``key`` will not lease it after all."""
        self._forget(_on_copy(key, copy))

    def _forget(self, key: str) -> None:
        self._promised[key] -= 1
        if self._promised[key] <= 0:
            del self._promised[key]

    def warm_copies(self, key: str, copies: Iterable[int]) -> list[int]:
        """Which of ``copies`` of the runtime hold a process of ``key`` that takes another
        seat (or one that seats chose are starting), the least busy first: where its next
        seat starts nothing."""
        busy: dict[int, int] = {}
        for copy in copies:
            on_copy = _on_copy(key, copy)
            takers, promised = self._takers(on_copy), self._promised[on_copy]
            if takers:
                busy[copy] = min(w.leases for w in takers) + promised
            elif 0 < promised < self.policy.max_seats:
                busy[copy] = promised
        return sorted(busy, key=lambda copy: (busy[copy], copy))

    def held_copies(self, key: str, copies: Iterable[int]) -> list[int]:
        """Which of ``copies`` hold a live process of ``key``, full or not, or one that
        seats chose: where a new process of ``key`` keeps its bot's seats together."""
        return [
            copy
            for copy in copies
            if self._promised[_on_copy(key, copy)] or self._live(_on_copy(key, copy))
        ]

    def _start(self, code: Callable[[], Path], image: int) -> Sandbox:
        return Sandbox(code(), limits=self.limits, image=image).__enter__()

    async def release(self, warm: Warm, failed: bool) -> None:
        """Give a seat back after its match; retire the process when it must be."""
        warm.leases -= 1
        warm.matches += 1
        warm.last_used = time.monotonic()
        if warm.retiring is None:
            warm.retiring = self._why_retire(warm, failed)
            if warm.retiring is not None:
                log.info("replacing the sandbox of %s: %s", warm.key, warm.retiring)
        if warm.retiring is not None and not warm.leases:
            await self._stop(warm)

    def _why_retire(self, warm: Warm, failed: bool) -> str | None:
        if not warm.alive:
            return "it exited"
        if failed:
            return "its seat forfeited"
        used = warm.cpu_per_match()
        if used is not None and used > self.policy.match_cpu_seconds:
            return f"it used {used:.1f} s of CPU per match"
        if (
            self.limits.cpu_seconds
            and (warm.box.cpu_seconds() or 0.0) > self.limits.cpu_seconds / 2
        ):
            return f"it used half of its {self.limits.cpu_seconds} s CPU lifetime"
        if warm.matches >= self.policy.max_matches:
            return f"it served {warm.matches} matches"
        return None

    async def stop_idle(self) -> int:
        """Stop the processes idle for longer than the policy allows; how many."""
        cutoff = time.monotonic() - self.policy.idle_seconds
        stale = [
            w
            for warms in self._warm.values()
            for w in warms
            if not w.leases and w.last_used < cutoff
        ]
        for warm in stale:
            await self._stop(warm)
        return len(stale)

    @property
    def count(self) -> int:
        return sum(map(len, self._warm.values()))

    async def close(self) -> None:
        for warm in [w for warms in self._warm.values() for w in warms]:
            await self._stop(warm)
        for executor in (self._starter, self._private_starter, self._stopper):
            executor.shutdown(wait=True)

    async def _stop(self, warm: Warm) -> None:
        warms = self._warm.get(warm.key, [])
        if warm in warms:
            warms.remove(warm)
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._stopper, warm.box.close)
        if self.on_stop is not None and warm.box.endpoint:
            await self.on_stop(warm.box.endpoint)


def _on_copy(key: str, copy: int) -> str:
    """The key of ``key``'s processes on the runtime's ``copy`` (a process serves one)."""
    return f"{key}@{copy}"
