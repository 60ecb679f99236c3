"""Warm sandboxes: a worker keeps each uploaded bot's sandboxed process across matches.

Starting a sandbox costs about 100 ms, far more than a match; so a process, once
started, serves match after match (the SDK's server starts a fresh ``Bot`` at each
``MatchStart``, so no state leaks between matches through the SDK). A process serves
one seat at a time, so the CPU its sandbox uses during a lease is that seat's match.

A process goes back to the idle set after its match unless it must be replaced: it
died or broke a limit, its seat forfeited, it used more than ``match_cpu_seconds`` of
CPU in the match, or it served ``max_matches`` matches. Idle processes are stopped
after ``idle_seconds``. Sandboxes are started and closed on a thread of their own that
lives as long as the pool: bubblewrap's ``--die-with-parent`` is tied to the thread
that started it, so a short-lived thread would take its bot with it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from arena.sandbox import Limits, Sandbox
from arena.sandbox.box import DEFAULT_LIMITS

log = logging.getLogger(__name__)


@dataclass(eq=False)
class Warm:
    """One warm sandboxed process and what it has done."""

    key: str
    box: Sandbox
    matches: int = 0
    last_used: float = field(default_factory=time.monotonic)
    cpu_at_lease: float | None = None

    @property
    def alive(self) -> bool:
        return self.box.returncode is None

    def cpu_used(self) -> float | None:
        """CPU seconds the sandbox used since this lease began, where the host counts it."""
        cgroup = self.box.cgroup
        now = cgroup.cpu_seconds() if cgroup is not None else None
        if now is None or self.cpu_at_lease is None:
            return None
        return now - self.cpu_at_lease


@dataclass(frozen=True)
class WarmPolicy:
    #: matches one process serves before it is replaced
    max_matches: int = 200
    #: seconds an idle process is kept
    idle_seconds: float = 60.0
    #: CPU seconds a process may use in one match before it is replaced
    match_cpu_seconds: float = 30.0


class WarmSandboxes:
    """Idle and leased sandboxes by key (a bot version's code), for one event loop."""

    def __init__(
        self,
        hidden: list[Path],
        limits: Limits = DEFAULT_LIMITS,
        policy: WarmPolicy | None = None,
    ) -> None:
        self.hidden = hidden
        self.limits = limits
        self.policy = policy or WarmPolicy()
        self._idle: dict[str, list[Warm]] = {}
        self._leased: set[Warm] = set()
        self._starter = ThreadPoolExecutor(max_workers=2, thread_name_prefix="arena-sandboxes")
        self.started = 0

    async def lease(self, key: str, code: Path) -> Warm:
        """A live process for ``code``: an idle one, else a new one (raises the sandbox's
        errors: SandboxError is the bot's, SandboxUnavailable the platform's)."""
        idle = self._idle.get(key, [])
        while idle:
            warm = idle.pop()
            if warm.alive:
                return self._leased_now(warm)
            await self._close(warm)
        loop = asyncio.get_running_loop()
        box = await loop.run_in_executor(self._starter, self._start, code)
        self.started += 1
        return self._leased_now(Warm(key, box))

    def _start(self, code: Path) -> Sandbox:
        return Sandbox(code, hidden=self.hidden, limits=self.limits).__enter__()

    def _leased_now(self, warm: Warm) -> Warm:
        cgroup = warm.box.cgroup
        warm.cpu_at_lease = cgroup.cpu_seconds() if cgroup is not None else None
        self._leased.add(warm)
        return warm

    async def release(self, warm: Warm, failed: bool) -> None:
        """Give a process back after its match; replace it when it must be."""
        self._leased.discard(warm)
        warm.matches += 1
        warm.last_used = time.monotonic()
        reason = self._why_replace(warm, failed)
        if reason is None:
            self._idle.setdefault(warm.key, []).append(warm)
            return
        log.info("replacing the sandbox of %s: %s", warm.key, reason)
        await self._close(warm)

    def _why_replace(self, warm: Warm, failed: bool) -> str | None:
        if not warm.alive:
            return "it exited"
        if failed:
            return "its seat forfeited"
        used = warm.cpu_used()
        if used is not None and used > self.policy.match_cpu_seconds:
            return f"it used {used:.1f} s of CPU in one match"
        if warm.matches >= self.policy.max_matches:
            return f"it served {warm.matches} matches"
        return None

    async def stop_idle(self) -> int:
        """Stop the processes idle for longer than the policy allows; how many."""
        cutoff = time.monotonic() - self.policy.idle_seconds
        stale = [w for idle in self._idle.values() for w in idle if w.last_used < cutoff]
        for warm in stale:
            self._idle[warm.key].remove(warm)
            await self._close(warm)
        return len(stale)

    @property
    def idle_count(self) -> int:
        return sum(map(len, self._idle.values()))

    async def close(self) -> None:
        everything = [w for idle in self._idle.values() for w in idle] + list(self._leased)
        self._idle, self._leased = {}, set()
        for warm in everything:
            await self._close(warm)
        self._starter.shutdown(wait=True)

    async def _close(self, warm: Warm) -> None:
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._starter, warm.box.close)
