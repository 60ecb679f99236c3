"""Migrations: ``upgrade`` brings a database to the current schema (Alembic, ``head``).

Every command that uses the database calls it first; it is a no-op on a current
database, and a cheap one: the stored revision is read with one query and compared with
the newest migration's, and Alembic is imported only when there is something to do (a
command or a worker that restarts does not pay for it). On PostgreSQL an advisory lock
keeps concurrent starters from racing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, inspect, make_url, text
from sqlalchemy.exc import DBAPIError

from arena.base.errors import SchemaTooNew
from arena.base.words import said
from arena.store.db import Database

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).parent / "migrations"
_LOCK_KEY = 0x4152454E41  # "ARENA"
#: a migration's file is named after its revision: ``NNNN_what_it_does.py``
_REVISION_FILE = re.compile(r"^(\d{4})_\w+\.py$")


def alembic_config() -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


@cache
def head() -> str:
    """The newest revision: the highest numbered migration file (the migrations form one
    line, each revising the one before; tests/test_store.py checks this is Alembic's head)."""
    numbers = [
        match.group(1)
        for path in (MIGRATIONS / "versions").iterdir()
        if (match := _REVISION_FILE.match(path.name))
    ]
    return max(numbers)


def current(db: Database) -> str | None:
    """The database's revision, or None before the first migration."""
    try:
        with db.engine.connect() as connection:
            return connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
    except DBAPIError:  # no alembic_version table: an empty database
        return None


def is_empty(url: str) -> bool:
    """Whether the database at ``url`` holds no platform yet (no file for SQLite, which
    this never creates; no migrated schema otherwise)."""
    found = make_url(url)
    if found.get_backend_name() == "sqlite":
        if not found.database or found.database == ":memory:":
            return True
        if not Path(found.database).exists():
            return True
    db = Database(url)
    try:
        with db.engine.connect() as connection:  # an unreachable server raises, as it should
            return not inspect(connection).has_table("alembic_version")
    finally:
        db.dispose()


def upgrade(db: Database) -> None:
    """Migrate to this release's schema; refuse a database a newer release migrated."""
    found = current(db)
    if found == head():
        return
    if found is not None and found.isdigit() and found > head():
        raise SchemaTooNew(said("schema.too_new", found=found, head=head()))
    from alembic import command

    config = alembic_config()
    with db.engine.connect() as connection:
        if db.dialect == "postgresql":
            connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": _LOCK_KEY})
            connection.commit()
        try:
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
            connection.commit()
        finally:
            if db.dialect == "postgresql":
                connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": _LOCK_KEY})
                connection.commit()


@contextmanager
def sqlite_keys_checked_after(connection: Connection) -> Iterator[None]:
    """Run migrations with SQLite's foreign keys off, then check every key and turn them
    on again (SQLite's own procedure for changing a table: copying a table with them on
    deletes, or refuses to delete, the rows that point at the old one). Elsewhere, as is."""
    if connection.dialect.name != "sqlite":
        yield
        return
    assert not connection.in_transaction(), "the pragma does nothing inside a transaction"
    _sqlite_foreign_keys(connection, "OFF")
    try:
        yield
        _check_sqlite_foreign_keys(connection)
    finally:
        _sqlite_foreign_keys(connection, "ON")


def _sqlite_foreign_keys(connection: Connection, state: str) -> None:
    """SQLite's foreign keys on or off (outside a transaction: inside one the pragma
    does nothing)."""
    connection.connection.driver_connection.execute(f"PRAGMA foreign_keys={state}")  # type: ignore[union-attr]


def _check_sqlite_foreign_keys(connection: Connection) -> None:
    """Every foreign key still holds once the migrations ran without SQLite checking."""
    broken = connection.connection.driver_connection.execute(  # type: ignore[union-attr]
        "PRAGMA foreign_key_check"
    ).fetchall()
    if broken:
        raise RuntimeError(said("schema.broken_keys", rows=broken[:5]))
