"""Fresh databases for the tests, at this release's schema without migrating each one.

Each test process migrates one template of each kind the first time a test asks for it
(all migrations, as ``arena db upgrade`` runs them), then hands every test a copy of its
own: a copied file on SQLite, ``CREATE DATABASE … TEMPLATE`` on PostgreSQL. Migrating
took 0.79 s per PostgreSQL test; a copy takes a few milliseconds. Tests of the migrations
themselves ask for an empty database instead (``empty_database_url``)."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg

from arena.store.db import Database
from arena.store.schema import upgrade
from tests.support.services import POSTGRES_ADMIN

#: what every database this process makes on PostgreSQL is named after
_PREFIX = "arena_test_"


def _postgres_url(name: str) -> str:
    base = POSTGRES_ADMIN.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://")
    return f"{base}/{name}"


def _migrate(url: str) -> None:
    database = Database(url)
    try:
        upgrade(database)
    finally:
        database.dispose()


class Templates:
    """This process's migrated templates, made on first use and dropped at its end."""

    def __init__(self, folder: Path) -> None:
        self._folder = folder
        self._sqlite: Path | None = None
        self._postgres: str | None = None

    def sqlite(self) -> Path:
        if self._sqlite is None:
            path = self._folder / "template.db"
            _migrate(f"sqlite:///{path}")
            self._sqlite = path
        return self._sqlite

    def postgres(self) -> str:
        if self._postgres is None:
            name = f"{_PREFIX}template_{uuid.uuid4().hex[:12]}"
            _create(name)
            _migrate(_postgres_url(name))
            self._postgres = name
        return self._postgres

    def close(self) -> None:
        if self._postgres is not None:
            _drop(self._postgres)


@contextmanager
def fresh_database(kind: str, folder: Path, templates: Templates | None) -> Iterator[str]:
    """The URL of a new database of ``kind`` ("sqlite" or "postgresql"): a copy of the
    migrated template, or empty without ``templates``; a PostgreSQL one dropped after."""
    if kind == "sqlite":
        path = folder / "arena.db"
        if templates is not None:
            shutil.copyfile(templates.sqlite(), path)
        yield f"sqlite:///{path}"
        return
    name = f"{_PREFIX}{uuid.uuid4().hex[:12]}"
    _create(name, templates.postgres() if templates is not None else None)
    try:
        yield _postgres_url(name)
    finally:
        _drop(name)


def _create(name: str, template: str | None = None) -> None:
    with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as admin:
        made_from = f' TEMPLATE "{template}"' if template is not None else ""
        admin.execute(f'CREATE DATABASE "{name}"{made_from}')


def _drop(name: str) -> None:
    with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = %s AND pid <> pg_backend_pid()",
            (name,),
        )
        admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
