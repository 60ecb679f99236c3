"""The services the tests use: PostgreSQL (the tests create their own databases on it)
and Redis (a database of the machine's server leased to this test process alone, flushed
around each test).

A Redis database is leased with an exclusive ``flock`` on a file per database number:
two test runs at once, or the xdist workers of one run, never share one, and a lease
ends with its process however it ends (the kernel drops the lock). ``ARENA_TEST_REDIS``
names a database to use instead (then it is the caller's to keep apart)."""

from __future__ import annotations

import fcntl
import os
import tempfile
from functools import cache
from pathlib import Path

POSTGRES_ADMIN = os.environ.get("ARENA_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
REDIS_TEST_SERVER = "redis://127.0.0.1:6379"
#: Redis's databases 1 to 15 are leased to test processes (0 is left to other users)
_LEASED = range(1, 16)


@cache
def redis_test_url() -> str:
    """The URL of this process's own Redis database (leased on first use)."""
    if os.environ.get("ARENA_TEST_REDIS"):
        return os.environ["ARENA_TEST_REDIS"]
    folder = Path(tempfile.gettempdir()) / "arena-test-redis-leases"
    folder.mkdir(exist_ok=True)
    for number in _LEASED:
        descriptor = os.open(folder / f"db-{number}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(descriptor)
            continue
        _HELD.append(descriptor)  # kept open (and locked) as long as this process lives
        return f"{REDIS_TEST_SERVER}/{number}"
    raise RuntimeError(f"every Redis test database ({_LEASED.start}-{_LEASED.stop - 1}) is leased")


_HELD: list[int] = []
