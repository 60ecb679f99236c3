"""A platform as ``arena up`` runs it, for a bench: a private Redis and SQLite (or the
empty database a bench is given) in a temporary folder that goes when the bench ends."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path

from arena.platform import Platform
from arena.platform.redis_server import RedisServer
from arena.platform.settings import Settings


@contextlib.contextmanager
def local_platform(prefix: str, database_url: str | None = None) -> Iterator[tuple[Platform, Path]]:
    """The platform and its folder (``prefix`` names the folder), on ``database_url`` (an
    empty database, e.g. a PostgreSQL one made with createdb) or SQLite in the folder."""
    with (
        tempfile.TemporaryDirectory(prefix=prefix) as tmp,
        RedisServer(Path(tmp) / "redis") as redis,
    ):
        url = database_url or f"sqlite:///{tmp}/arena.db"
        yield Platform(Settings(Path(tmp), url, redis.url)), Path(tmp)
