"""Fresh databases for the tests, at this release's schema without migrating each one.

Each test process migrates one template of each kind the first time a test asks for it
(all migrations, as ``arena db upgrade`` runs them), then hands every test a copy of its
own: a copied file on SQLite, ``CREATE DATABASE … TEMPLATE`` on PostgreSQL. Migrating
took 0.79 s per PostgreSQL test; a copy takes a few milliseconds on SQLite, but 0.4–0.6 s
on PostgreSQL (it copies the system catalogs too, through the WAL). So a PostgreSQL copy
a test is done with is kept for the next one: its sessions ended, its rows emptied and
the template's put back, its sequences set back; only if its schema is no longer the
template's (a test of migrations went down and up again) is it dropped. Tests of the
migrations themselves ask for an empty database instead (``empty_database_url``)."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
from psycopg import sql

from arena.store.db import Database
from arena.store.schema import upgrade
from tests.support.services import POSTGRES_ADMIN

#: what every database this process makes on PostgreSQL is named after
_PREFIX = "arena_test_"


def _postgres_url(name: str) -> str:
    """SQLAlchemy's URL of this server's database ``name`` (psycopg's driver)."""
    return psycopg_url(name).replace("postgresql://", "postgresql+psycopg://", 1)


def _migrate(url: str) -> None:
    database = Database(url)
    try:
        upgrade(database)
    finally:
        database.dispose()


#: the schema of a database, for telling whether a test changed it: every relation,
#: column, constraint, index, trigger and function of ``public``, by name and identity
_SCHEMA = """
SELECT md5(concat_ws('|',
  (SELECT string_agg(format('%s %s %s', c.oid, c.relname, c.relkind), ',' ORDER BY c.oid)
    FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace),
  (SELECT string_agg(format('%s %s %s %s %s %s', a.attrelid, a.attname, a.atttypid,
                            a.attnotnull, a.attisdropped, a.atthasdef),
                     ',' ORDER BY a.attrelid, a.attnum)
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
    WHERE c.relnamespace = 'public'::regnamespace AND a.attnum > 0),
  (SELECT string_agg(oid::text, ',' ORDER BY oid) FROM pg_constraint
    WHERE connamespace = 'public'::regnamespace),
  (SELECT string_agg(t.oid::text, ',' ORDER BY t.oid) FROM pg_trigger t
    JOIN pg_class c ON c.oid = t.tgrelid WHERE c.relnamespace = 'public'::regnamespace),
  (SELECT string_agg(oid::text, ',' ORDER BY oid) FROM pg_proc
    WHERE pronamespace = 'public'::regnamespace)))
"""


class _Snapshot:
    """What a database copied from the template holds: its schema's fingerprint, the
    rows of each table, the state of each sequence."""

    def __init__(self, url: str) -> None:
        with psycopg.connect(url) as connection:
            self.schema = _fingerprint(connection)
            tables = connection.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1"
            ).fetchall()
            self.tables = [name for (name,) in tables]
            self.rows: dict[str, bytes] = {}
            for table in self.tables:
                copied = bytearray()
                query = sql.SQL("COPY {} TO STDOUT").format(sql.Identifier(table))
                with connection.cursor().copy(query) as copy:
                    for block in copy:
                        copied += block
                if copied:
                    self.rows[table] = bytes(copied)
            self.sequences = connection.execute(
                "SELECT schemaname || '.' || sequencename, COALESCE(last_value, start_value), "
                "last_value IS NOT NULL FROM pg_sequences WHERE schemaname = 'public'"
            ).fetchall()

    def restore(self, url: str) -> bool:
        """Empties the database at ``url`` back to the template's rows and sequences;
        False (and nothing done) if its schema is no longer the template's."""
        with psycopg.connect(url) as connection:
            if _fingerprint(connection) != self.schema:
                return False
            connection.execute("SET session_replication_role = replica")  # no FK order
            for table in self.tables:
                connection.execute(sql.SQL("DELETE FROM {}").format(sql.Identifier(table)))
            for table, rows in self.rows.items():
                query = sql.SQL("COPY {} FROM STDIN").format(sql.Identifier(table))
                with connection.cursor().copy(query) as copy:
                    copy.write(rows)
            for sequence, value, called in self.sequences:
                connection.execute("SELECT setval(%s, %s, %s)", (sequence, value, called))
        return True


def _fingerprint(connection: psycopg.Connection) -> str:
    (digest,) = connection.execute(_SCHEMA).fetchone() or ("",)
    return str(digest)


class Templates:
    """This process's migrated templates, made on first use and dropped at its end, and
    its PostgreSQL copies that tests are done with, emptied for the next ones."""

    def __init__(self, folder: Path) -> None:
        self._folder = folder
        self._sqlite: Path | None = None
        self._postgres: str | None = None
        self._snapshot: _Snapshot | None = None
        self._idle: list[str] = []

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
            self._postgres = name  # dropped at the end, whatever happens next
            _migrate(_postgres_url(name))
            self._snapshot = _Snapshot(psycopg_url(name))
        return self._postgres

    def borrow(self) -> str:
        """The name of a PostgreSQL database as the template is: one a test gave back,
        or a new copy."""
        if self._idle:
            return self._idle.pop()
        name = f"{_PREFIX}{uuid.uuid4().hex[:12]}"
        _create(name, self.postgres())
        return name

    def give_back(self, name: str) -> None:
        """Ends the sessions on ``name`` and keeps it, emptied, for the next test, or
        drops it if its schema changed (or emptying it failed)."""
        _end_sessions(name)
        try:
            assert self._snapshot is not None, "a copy is only lent once the template is made"
            if self._snapshot.restore(psycopg_url(name)):
                self._idle.append(name)
                return
        except psycopg.Error:
            pass
        _drop(name)

    def close(self) -> None:
        for name in self._idle:
            _drop(name)
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
    if templates is not None:
        name = templates.borrow()
        try:
            yield _postgres_url(name)
        finally:
            templates.give_back(name)
        return
    name = f"{_PREFIX}{uuid.uuid4().hex[:12]}"
    _create(name)
    try:
        yield _postgres_url(name)
    finally:
        _drop(name)


def _create(name: str, template: str | None = None) -> None:
    with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as admin:
        made_from = f' TEMPLATE "{template}"' if template is not None else ""
        admin.execute(f'CREATE DATABASE "{name}"{made_from}')


def psycopg_url(name: str) -> str:
    """The psycopg URL of this server's database ``name``."""
    return f"{POSTGRES_ADMIN.rsplit('/', 1)[0]}/{name}"


def _end_sessions(name: str) -> None:
    """Terminates every session on database ``name`` (a test's pools, a stranded one)."""
    with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity "
            "WHERE datname = %s AND pid <> pg_backend_pid()",
            (name,),
        )


def _drop(name: str) -> None:
    """Drops database ``name``; ``FORCE`` ends its sessions first."""
    with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
