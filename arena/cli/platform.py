"""What the platform's commands share: the platform opened from the environment, and
one line on stderr for a request that cannot be done."""

from __future__ import annotations

from typing import NoReturn

import typer

from arena.cli import console
from arena.platform import Platform
from arena.platform.core import NoPlatform
from arena.platform.errors import SERVICE_ERRORS, unavailable

out = console.stdout()
err = console.stderr()


def platform(create: bool = False) -> Platform:
    """The platform the environment names (``ARENA_DATA_DIR``, ``ARENA_DATABASE_URL``); a
    command refuses a database with no platform in it unless it is to ``create`` one."""
    try:
        return Platform(create=create)
    except NoPlatform as error:
        fail(str(error), 1)
    except SERVICE_ERRORS as error:
        fail(unavailable(error), 1)
        raise
    except Exception as error:
        fail(f"cannot open the database: {error}", 1)
        raise


def fail(message: str, code: int = 2) -> NoReturn:
    err.print(f"error: {message}", markup=False)
    raise typer.Exit(code)
