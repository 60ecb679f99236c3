"""Where the platform keeps its state, from the environment (one place, read once).

``ARENA_DATA_DIR`` (default ``$XDG_DATA_HOME/arena``, that is ``~/.local/share/arena``,
whatever the current folder) holds the SQLite database, the private Redis and logs.
``ARENA_DATABASE_URL`` selects another database (for example
``postgresql+psycopg://user@host/db``); ``REDIS_URL`` an existing Redis. Without
``REDIS_URL``, the Redis of an ``arena up`` running on the same data directory is used
(it writes where it runs to ``running.json`` there). ``ARENA_QUEUE`` names the queue
(default ``arena-matches``): platforms that share one Redis keep apart by their queue
names. A worker on another machine needs only ``ARENA_DATABASE_URL`` and ``REDIS_URL``
(and the platform's ``ARENA_QUEUE``, if it set one). ``ARENA_OPERATOR_TOKEN``, when
set, is the operator's API token (competitions, any ladder); without it the operator
works from the command line only.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: what ``arena up`` writes in the data directory while it runs
RUNNING_FILE = "running.json"
#: the queue's name unless ``ARENA_QUEUE`` says otherwise
DEFAULT_QUEUE = "arena-matches"


@dataclass(frozen=True)
class Settings:
    data_dir: Path
    database_url: str
    redis_url: str | None
    queue_name: str = DEFAULT_QUEUE
    #: the operator's API token (None: the operator's API is off)
    operator_token: str | None = field(default=None, repr=False)

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        data_dir = data_dir_from(env)
        url = env.get("ARENA_DATABASE_URL") or f"sqlite:///{data_dir / 'arena.db'}"
        redis_url = env.get("REDIS_URL") or (running(data_dir) or {}).get("redis_url")
        queue_name = env.get("ARENA_QUEUE") or DEFAULT_QUEUE
        operator_token = env.get("ARENA_OPERATOR_TOKEN") or None
        return cls(data_dir, url, redis_url or None, queue_name, operator_token)


def data_dir_from(env: dict[str, str] | os._Environ[str]) -> Path:
    if env.get("ARENA_DATA_DIR"):
        return Path(env["ARENA_DATA_DIR"]).expanduser().resolve()
    base = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base).expanduser().resolve() / "arena"


def running(data_dir: Path) -> dict[str, Any] | None:
    """What the ``arena up`` running on ``data_dir`` wrote, if one runs."""
    try:
        found = json.loads((data_dir / RUNNING_FILE).read_text())
        os.kill(int(found["pid"]), 0)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return found


def write_running(data_dir: Path, **where: Any) -> Path:
    """Say where this running platform is (readable by its owner only: it holds the
    private Redis's password)."""
    path = data_dir / RUNNING_FILE
    data_dir.mkdir(parents=True, exist_ok=True)
    written = path.with_name(f".{RUNNING_FILE}.{os.getpid()}")
    descriptor = os.open(written, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as out:
        json.dump({"pid": os.getpid(), **where}, out)
    written.replace(path)  # whole or not at all: a reader never sees half of it
    return path
