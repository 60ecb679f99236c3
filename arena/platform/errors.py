"""Services that are down, said in one line: the CLI prints it (exit 1) and the API
answers it with 503, instead of a traceback; and the setup problems a user must fix."""

from __future__ import annotations

import redis.exceptions
import sqlalchemy.exc


class PlatformError(RuntimeError):
    """A setup problem the user must fix (no Redis configured, for example)."""


#: what a service that is down or unreachable raises
SERVICE_ERRORS: tuple[type[Exception], ...] = (
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    sqlalchemy.exc.OperationalError,
    sqlalchemy.exc.InterfaceError,
)


def unavailable(error: Exception) -> str:
    """One line for a service error: which service, and what it said."""
    if isinstance(error, redis.exceptions.RedisError):
        return (
            f"Redis is not reachable ({_first_line(error)}): start it, or run `arena up`, "
            "or set REDIS_URL"
        )
    cause = getattr(error, "orig", None) or error
    return f"the database is not reachable ({_first_line(cause)}); check ARENA_DATABASE_URL"


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0].strip() if text else type(error).__name__
