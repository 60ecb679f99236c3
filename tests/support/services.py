"""The services the tests use: PostgreSQL (the tests create their own databases on it)
and Redis (a database flushed around each test)."""

from __future__ import annotations

import os

POSTGRES_ADMIN = os.environ.get("ARENA_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")


REDIS_TEST_URL = os.environ.get("ARENA_TEST_REDIS", "redis://127.0.0.1:6379/13")
