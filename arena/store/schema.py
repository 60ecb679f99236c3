"""Migrations: ``upgrade`` brings a database to the current schema (Alembic, ``head``).

Every command that uses the database calls it first; it is a no-op on a current
database. On PostgreSQL an advisory lock keeps concurrent starters from racing.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text

from arena.store.db import Database

MIGRATIONS = Path(__file__).parent / "migrations"
_LOCK_KEY = 0x4152454E41  # "ARENA"


def alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def head() -> str:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def current(db: Database) -> str | None:
    with db.engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def upgrade(db: Database) -> None:
    if current(db) == head():
        return
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
