"""A platform as ``arena up`` runs it, for a bench: a private Redis and SQLite in a
temporary folder that goes when the bench ends."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path

from arena.platform import Platform
from arena.platform.redis_server import RedisServer
from arena.platform.settings import Settings


@contextlib.contextmanager
def local_platform(prefix: str) -> Iterator[tuple[Platform, Path]]:
    """The platform and its folder (``prefix`` names the folder)."""
    with (
        tempfile.TemporaryDirectory(prefix=prefix) as tmp,
        RedisServer(Path(tmp) / "redis") as redis,
    ):
        yield Platform(Settings(Path(tmp), f"sqlite:///{tmp}/arena.db", redis.url)), Path(tmp)
