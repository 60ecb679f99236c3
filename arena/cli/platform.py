"""What the platform's commands share: the platform opened from the environment, and
their output."""

from __future__ import annotations

from arena.cli import console
from arena.cli.errors import fail
from arena.platform import Platform
from arena.platform.errors import SERVICE_ERRORS, PlatformError

out = console.stdout()
err = console.stderr()


def platform(create: bool = False) -> Platform:
    """The platform the environment names (``ARENA_DATA_DIR``, ``ARENA_DATABASE_URL``); a
    command refuses a database with no platform in it unless it is to ``create`` one."""
    try:
        return Platform(create=create)
    except PlatformError:
        raise  # no platform there: said by arena.cli.main, as everywhere
    except SERVICE_ERRORS:
        raise  # a service down: the same
    except Exception as error:  # a URL or file the database driver refuses
        fail(f"cannot open the database: {error}", 1)
