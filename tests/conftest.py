"""Fixtures for the platform tests: real databases (SQLite and PostgreSQL) and real Redis."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import psycopg
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
from tests.support.api import OPERATOR_TOKEN
from tests.support.lifetime import mark_session, sweep_dead_sessions
from tests.support.services import POSTGRES_ADMIN, redis_test_url

#: ``make test-fast`` runs property tests with fewer examples (``make test``: the default)
hypothesis_settings.register_profile("fast", max_examples=20)


def pytest_configure(config: pytest.Config) -> None:
    """Mark the processes this session starts, and kill what a dead session left."""
    mark_session()
    swept = sweep_dead_sessions()
    if swept:
        print(f"killed {len(swept)} processes left by an earlier test session: {swept}")


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database of each kind: a SQLite file, or a new PostgreSQL database."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'arena.db'}"
        return
    name = f"arena_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    base = POSTGRES_ADMIN.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://")
    try:
        yield f"{base}/{name}"
    finally:
        with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = %s AND pid <> pg_backend_pid()",
                (name,),
            )
            admin.execute(f'DROP DATABASE IF EXISTS "{name}"')


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
    return Settings(tmp_path, database_url, redis_url)


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
        if _SERVICE_FIXTURES & set(item.fixturenames) or params.get("database_url") == (
            "postgresql"
        ):
            item.add_marker(pytest.mark.services)
