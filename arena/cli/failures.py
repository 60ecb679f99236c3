"""What ends a command with one line instead of a traceback (imported only once a
command failed, so the exceptions' modules cost nothing to a command that succeeds)."""

from __future__ import annotations

from arena.base.endpoints import EndpointError
from arena.base.errors import Refused, SchemaTooNew
from arena.bench.instructions import ValgrindMissing
from arena.cli.errors import CommandFailed
from arena.engine import RulesError
from arena.platform.errors import SERVICE_ERRORS, PlatformError, unavailable
from arena.platform.launcher import BotDidNotStart, BotSpecError


def explain(error: Exception) -> tuple[str, int] | None:
    """The line to print and the exit code for ``error``; None for a bug (a traceback)."""
    if isinstance(error, CommandFailed):
        return str(error), error.code
    if isinstance(error, SERVICE_ERRORS):
        return unavailable(error), 1
    if isinstance(error, (PlatformError, SchemaTooNew, BotDidNotStart)):
        return str(error), 1
    if isinstance(error, (Refused, RulesError, EndpointError, BotSpecError, ValgrindMissing)):
        return str(error), 2
    return None
