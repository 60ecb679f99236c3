"""Fixtures for the platform tests: real databases (SQLite and PostgreSQL) and real Redis."""

from __future__ import annotations

import atexit
import gc
import logging
import os
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
import redis
from fastapi.testclient import TestClient
from hypothesis import settings as hypothesis_settings

from arena.platform import Platform
from arena.platform.settings import Settings
from arena.store.db import Database
from arena.store.owners import add_owner
from arena.store.schema import upgrade
from dashboard.app import create_app
from tests.support.api import OPERATOR_TOKEN, TEST_HASHING
from tests.support.databases import Templates, fresh_database
from tests.support.lifetime import mark_session, sweep_dead_sessions
from tests.support.services import redis_test_url

#: the order the tests run in, from their measured durations
pytest_plugins = ["tests.support.durations"]

#: ``make test-fast`` runs property tests with fewer examples (``make test``: the default)
hypothesis_settings.register_profile("fast", max_examples=20)


def pytest_configure(config: pytest.Config) -> None:
    """Mark the processes this session starts, and kill what a dead session left; a
    token ``arena login`` kept for this machine's user is never the tests' (their own,
    empty, configuration folder). pytest keeps the test modules it rewrites (their asserts
    explained) even where bytecode is not to be written (PYTHONDONTWRITEBYTECODE, as some
    machines set), or every test process rewrites them all again (5 s of its start); the
    processes the tests start are left to the environment."""
    sys.dont_write_bytecode = False
    if "ARENA_TESTS_CONFIG" not in os.environ:  # the controller's, shared by its workers
        os.environ["ARENA_TESTS_CONFIG"] = tempfile.mkdtemp(prefix="arena-tests-config-")
    os.environ["XDG_CONFIG_HOME"] = os.environ["ARENA_TESTS_CONFIG"]
    mark_session()
    swept = sweep_dead_sessions()
    if swept:
        print(f"killed {len(swept)} processes left by an earlier test session: {swept}")
    if "PYTEST_XDIST_WORKER" in os.environ:
        atexit.register(_leave_unfinalized)  # registered first of the session's: runs last


def _leave_unfinalized() -> None:
    """A test process's last step, once its results are sent and every exit handler of
    its session has run (its fork server, its databases): exit without the interpreter's
    finalization, which frees the process's millions of objects one by one (the four
    processes at once, 6 s of the suite's end) only for the memory to be returned anyway."""
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def pytest_collection_finish(session: pytest.Session) -> None:
    """What the collection made (the modules, the tests, their marks: a million objects)
    lives as long as the session: frozen out of the garbage collector's full passes, which
    otherwise walk it again every few seconds (8 % of a test process's CPU)."""
    gc.collect()
    gc.freeze()


@pytest.fixture(scope="session")
def templates(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Templates]:
    """This test process's migrated databases, copied for each test."""
    made = Templates(tmp_path_factory.mktemp("templates"))
    yield made
    made.close()


#: the database fixtures, each parametrized by kind (:func:`pytest_generate_tests`)
DATABASE_FIXTURES = ("database_url", "empty_database_url")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every test of a database runs on SQLite; the store's contract and what needs
    PostgreSQL's locking (modules marked ``both_databases``) runs on PostgreSQL too. A
    test that names its kinds (``parametrize("database_url", [...], indirect=True)``)
    keeps them."""
    named = {
        name.strip()
        for marker in metafunc.definition.iter_markers("parametrize")
        for name in (
            marker.args[0].split(",") if isinstance(marker.args[0], str) else marker.args[0]
        )
    }
    both = metafunc.definition.get_closest_marker("both_databases") is not None
    for fixture in DATABASE_FIXTURES:
        if fixture in metafunc.fixturenames and fixture not in named:
            kinds = ["sqlite", "postgresql"] if both else ["sqlite"]
            metafunc.parametrize(fixture, kinds, indirect=True)


@pytest.fixture
def database_url(
    request: pytest.FixtureRequest, tmp_path: Path, templates: Templates
) -> Iterator[str]:
    """A fresh database at this release's schema: a SQLite file, or a new PostgreSQL
    database, copied from a template migrated once per test process."""
    with fresh_database(request.param, tmp_path, templates) as url:
        yield url


@pytest.fixture
def empty_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database (for the tests of migrating itself)."""
    with fresh_database(request.param, tmp_path, None) as url:
        yield url


@pytest.fixture
def db(database_url: str) -> Iterator[Database]:
    database = Database(database_url)
    upgrade(database)
    yield database
    database.dispose()


@pytest.fixture
def redis_url() -> Iterator[str]:
    """An isolated Redis database on the machine's server, flushed before and after."""
    client = redis.Redis.from_url(redis_test_url())
    client.flushdb()
    yield redis_test_url()
    client.flushdb()


@pytest.fixture
def settings(tmp_path: Path, database_url: str, redis_url: str) -> Settings:
    return Settings(tmp_path, database_url, redis_url, password_hashing=TEST_HASHING)


@pytest.fixture
def app_and_token(settings: Settings) -> tuple[TestClient, str, Platform]:
    """The app (its operator's token: OPERATOR_TOKEN) and the token of owner alice. Tests
    change the store behind its back, so it keeps no page (tests/test_page_cache.py tests
    the cache, and every test of a running ``arena`` has it)."""
    app = create_app(replace(settings, operator_token=OPERATOR_TOKEN, page_cache_seconds=0))
    client = TestClient(app)
    arena = client.app.state.platform
    _, token = arena.db.transaction(lambda s: add_owner(s, "alice"))
    return client, token, arena


#: fixtures that reach a service: Redis, or a database server
_SERVICE_FIXTURES = {"redis_url", "settings", "app_and_token"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that needs Redis or PostgreSQL ``services`` (from the fixtures it
    uses), so ``make test-fast`` can leave them out."""
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        postgres = "postgresql" in (params.get("database_url"), params.get("empty_database_url"))
        if _SERVICE_FIXTURES & set(item.fixturenames) or postgres:
            item.add_marker(pytest.mark.services)
