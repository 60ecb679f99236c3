"""Where the platform keeps its state, from the environment (one place, read once).

``ARENA_DATA_DIR`` (default ``./data``) holds the SQLite database, the private Redis
and logs. ``ARENA_DATABASE_URL`` selects another database (for example
``postgresql+psycopg://user@host/db``); ``REDIS_URL`` an existing Redis. A worker on
another machine needs only ``ARENA_DATABASE_URL`` and ``REDIS_URL``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Settings:
    data_dir: Path
    database_url: str
    redis_url: str | None

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        data_dir = Path(env.get("ARENA_DATA_DIR", "data")).resolve()
        url = env.get("ARENA_DATABASE_URL") or f"sqlite:///{data_dir / 'arena.db'}"
        return cls(data_dir=data_dir, database_url=url, redis_url=env.get("REDIS_URL") or None)
