"""Database engines and transactions: SQLite (WAL) by default, PostgreSQL when configured.

Writers take the database's write lock up front (SQLite ``BEGIN IMMEDIATE``; a row lock
with ``SELECT ... FOR UPDATE`` on PostgreSQL where it matters), so concurrent workers
serialise instead of failing on lock upgrades. Transient failures (a dropped
connection, a busy database) are retried.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib
import logging
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from sqlalchemy import (
    Connection,
    CursorResult,
    Dialect,
    Engine,
    Result,
    Table,
    create_engine,
    event,
    select,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

if TYPE_CHECKING:
    from arena.store.cold import ColdStore

log = logging.getLogger(__name__)
T = TypeVar("T")

#: attempts for a transaction that fails transiently (1 + 3 retries)
ATTEMPTS = 4
SQLITE_BUSY_MS = 30_000


def upsert(dialect: Dialect, table: Table) -> Any:
    """The database's own INSERT for ``table``, which has ON CONFLICT (PostgreSQL's and
    SQLite's alike), loaded for the database in use only."""
    return importlib.import_module(f"sqlalchemy.dialects.{dialect.name}").insert(table)


def rows_changed(result: Result[Any]) -> int:
    """How many rows an UPDATE or DELETE changed (a DML statement's result is a cursor's)."""
    return cast(CursorResult[Any], result).rowcount


def locked(session: Session, model: type[T], row_id: int) -> T:
    """The row ``row_id`` of ``model``, locked until the transaction ends (PostgreSQL;
    on SQLite every write already is one at a time)."""
    return session.scalars(select(model).where(model.id == row_id).with_for_update()).one()  # type: ignore[attr-defined]


def make_engine(url: str) -> Engine:
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return _sqlite_engine(url, parsed.database)
    return create_engine(
        url, pool_pre_ping=True, pool_recycle=1800, future=True, connect_args=_POSTGRES_LIMITS
    )


#: a worker on a host that vanishes (a cut link, a power loss) must not hold its locks
#: until TCP gives up (15 minutes to hours): the server ends a session idle inside a
#: transaction for 30 s, probes a silent client after 5 s (dead after ~11 s), and drops
#: a connection whose data stays unacknowledged for 10 s (``tcp_user_timeout``: a host
#: lost just after its last answer arrived, before it acknowledged it, is never probed,
#: the server retransmitting instead); the client gives up a connection attempt after
#: 10 s and watches a silent server the same ways
IDLE_IN_TRANSACTION_MS = 30_000
UNACKNOWLEDGED_MS = 10_000
_POSTGRES_LIMITS = {
    "connect_timeout": 10,
    "keepalives": 1,
    "keepalives_idle": 5,
    "keepalives_interval": 2,
    "keepalives_count": 3,
    "tcp_user_timeout": UNACKNOWLEDGED_MS,
    "options": (
        f"-c idle_in_transaction_session_timeout={IDLE_IN_TRANSACTION_MS}"
        " -c tcp_keepalives_idle=5 -c tcp_keepalives_interval=2 -c tcp_keepalives_count=3"
        f" -c tcp_user_timeout={UNACKNOWLEDGED_MS}"
    ),
}


def _sqlite_engine(url: str, database: str | None) -> Engine:
    if database and database != ":memory:":
        Path(database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(
        url, connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_MS / 1000}
    )

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves, below
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Connection) -> None:
        write = connection.get_execution_options().get("arena_write", False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

    return engine


class _WriterLock:
    """Serialises SQLite writers across processes on a kernel file lock.

    SQLite's own busy handler sleeps (1, 2, 5, 10 ... ms) when the write lock is taken,
    however soon it is released; ``flock`` blocks and wakes at once. A new descriptor
    per acquisition makes it exclude threads of the same process too.
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    @contextmanager
    def held(self) -> Iterator[None]:
        descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            yield
        finally:
            os.close(descriptor)  # closing releases the lock


def shown_url(url: str) -> str:
    """A database URL as messages show it: without its password."""
    return make_url(url).render_as_string(hide_password=True)


class Database:
    """An engine and its two kinds of sessions: reads, and writes that lock first."""

    def __init__(self, url: str, cold: ColdStore | None = None) -> None:
        """``cold``: where old match logs went (arena.store.cold); its sessions read them
        back through it (``session.info["cold"]``)."""
        self.url = url
        self.cold = cold
        #: the URL as messages show it (without its password)
        self.shown_url = shown_url(url)
        self.engine = make_engine(url)
        self.dialect = self.engine.dialect.name
        database = make_url(url).database
        self._writer = (
            _WriterLock(Path(f"{database}.write-lock"))
            if self.dialect == "sqlite" and database and database != ":memory:"
            else None
        )
        info = {"cold": cold}
        self._read = sessionmaker(self.engine, expire_on_commit=False, info=info)
        self._write = sessionmaker(
            self.engine.execution_options(arena_write=True), expire_on_commit=False, info=info
        )

    @contextmanager
    def read(self) -> Iterator[Session]:
        with self._read() as session, session.begin():
            yield session

    @contextmanager
    def read_core(self) -> Iterator[Connection]:
        """A read transaction on a plain connection: Core statements on the hot path, without
        a Session's cost."""
        with self.engine.connect() as connection, connection.begin():
            yield connection

    def transaction(self, work: Callable[[Session], T], attempts: int = ATTEMPTS) -> T:
        """Run ``work`` in one write transaction, retrying transient failures."""
        for attempt in range(1, attempts + 1):
            try:
                with self._writer_held(), self._write() as session, session.begin():
                    return work(session)
            except (OperationalError, DBAPIError) as error:
                if attempt == attempts or not _transient(error):
                    raise
                log.warning("database error, retrying (%d/%d): %s", attempt, attempts, error)
                time.sleep(0.1 * 2**attempt)
        raise AssertionError("unreachable")

    def _writer_held(self) -> contextlib.AbstractContextManager[None]:
        return self._writer.held() if self._writer is not None else contextlib.nullcontext()

    def dispose(self) -> None:
        self.engine.dispose()


def _transient(error: DBAPIError) -> bool:
    if error.connection_invalidated:
        return True
    text = str(error.orig).lower()
    return any(
        word in text
        for word in (
            "locked",
            "busy",
            "terminat",
            "connection",
            "closed",
            "server closed",
            "could not connect",
        )
    )
