"""A crowd of readers of a site: each one reads a page on its own connection (a person's
browser), waits ``think`` seconds and reads another, and times every page.

The crowd is split over client processes: one Python event loop that is 200 readers and
times them measures its own queue (a lone ``curl`` beside such a crowd saw p99 22 ms while
the crowd's one loop of httpx clients timed the same pages at p99 2.8 s)."""

from __future__ import annotations

import asyncio
import multiprocessing
import random
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

import aiohttp

#: seconds the client processes get to start before the first reader reads
START_GRACE = 3.0


@dataclass
class Crowd:
    base: str
    urls: list[str]
    readers: int
    think: float
    processes: int = 2
    #: (when it was asked, seconds after the window began; its latency), every page read
    latencies: list[tuple[float, float]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def read(self, window: float) -> None:
        """Read for ``window`` seconds (after the processes started)."""
        count = max(1, min(self.processes, self.readers))
        shares = [self.readers // count + (i < self.readers % count) for i in range(count)]
        firsts = [sum(shares[:i]) for i in range(count)]
        # CLOCK_MONOTONIC is one clock for every process of the machine
        start = time.monotonic() + START_GRACE
        context = multiprocessing.get_context("spawn")  # the caller holds threads and pools
        with ProcessPoolExecutor(count, mp_context=context) as pool:
            parts = [
                pool.submit(
                    _read_part, self.base, self.urls, range(first, first + share),
                    start, window, self.think,
                )
                for first, share in zip(firsts, shares, strict=True)
            ]  # fmt: skip
            for part in parts:
                latencies, errors = part.result()
                self.latencies += latencies
                self.errors += errors


def _read_part(
    base: str, urls: list[str], numbers: range, start: float, window: float, think: float
) -> tuple[list[tuple[float, float]], list[str]]:
    return asyncio.run(_read(base, urls, numbers, start, window, think))


async def _read(
    base: str, urls: list[str], numbers: range, start: float, window: float, think: float
) -> tuple[list[tuple[float, float]], list[str]]:
    latencies: list[tuple[float, float]] = []
    errors: list[str] = []
    end = start + window
    timeout = aiohttp.ClientTimeout(total=30.0)

    async def reader(number: int) -> None:
        rng = random.Random(number)
        # readers arrive spread out over their first think
        await asyncio.sleep(max(0.0, start - time.monotonic()) + rng.random() * think)
        connector = aiohttp.TCPConnector(limit=1)
        async with aiohttp.ClientSession(base, connector=connector, timeout=timeout) as client:
            while True:  # every reader reads once, however late its process started
                url = rng.choice(urls)
                began = time.monotonic()
                try:
                    async with client.get(url) as answer:
                        await answer.read()
                        if answer.status == 200:
                            latencies.append((began - start, time.monotonic() - began))
                        else:
                            errors.append(f"{url}: {answer.status}")
                except (aiohttp.ClientError, TimeoutError) as error:
                    errors.append(f"{url}: {type(error).__name__}")
                if time.monotonic() >= end:
                    return
                await asyncio.sleep(think)

    await asyncio.gather(*(reader(n) for n in numbers))
    return latencies, errors
