"""A platform as ``arena up`` runs it, for a bench: a private Redis and SQLite (or the
empty database a bench is given) in a temporary folder that goes when the bench ends;
and a twin beside it on an empty database of its own, to time a write against."""

from __future__ import annotations

import contextlib
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import create_engine, make_url, text

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


@contextlib.contextmanager
def twin_platform(arena: Platform, folder: Path) -> Iterator[Platform]:
    """A second platform beside ``arena``, on its Redis, with an empty database of its
    own: a file in ``folder`` on SQLite, a new database on ``arena``'s PostgreSQL server
    (dropped when the platform goes)."""
    url = make_url(arena.settings.database_url)
    folder.mkdir(parents=True, exist_ok=True)
    if url.get_backend_name() != "postgresql":
        yield Platform(Settings(folder, f"sqlite:///{folder}/arena.db", arena.settings.redis_url))
        return
    name = f"{url.database}_twin_{uuid.uuid4().hex[:8]}"
    admin = create_engine(url.set(database="postgres"), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
        twin_url = url.set(database=name).render_as_string(hide_password=False)
        twin = Platform(Settings(folder, twin_url, arena.settings.redis_url))
        try:
            yield twin
        finally:
            twin.db.engine.dispose()
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
